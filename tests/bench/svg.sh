#!/bin/bash
# SPDX-License-Identifier: MIT
# --plot writes an SVG that is valid XML with one throughput line per mode, and
# renders in a real browser: a headless Chromium screenshot of it must have
# some of the modes' colours in it.  Without Chromium only the XML is checked,
# and the test says so (skips, 77, when that is all it could do).
. "$(dirname "$0")/harness.sh"
tmpdir
"$PAGECLIFF" bench -d "$T" --size 64m --numjobs 2 --mode buffered,direct \
	--interval 100ms -q --plot "$T/p.svg" -o /dev/null 2>"$T/err" || fail "run: $(cat "$T/err")"
python3 - "$T/p.svg" <<'PY' || fail "SVG is not valid XML or lacks the series"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
ns = "{http://www.w3.org/2000/svg}"
assert root.tag == ns + "svg"
assert len(root.findall(ns + "polyline")) == 6
texts = "".join(t.text or "" for t in root.iter(ns + "text"))
assert "buffered" in texts and "direct" in texts, texts
PY
chrome=$(command -v chromium || command -v chromium-browser || command -v google-chrome)
[ -n "$chrome" ] || skip "SVG is valid XML; no Chromium to render it (apt-get install chromium)"
timeout 60 "$chrome" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
	--window-size=960,640 --screenshot="$T/p.png" "file://$T/p.svg" >/dev/null 2>&1
[ -s "$T/p.png" ] || fail "Chromium made no screenshot"
python3 - "$T/p.png" <<'PY' || fail "screenshot does not show the chart"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
w, h, depth, ctype = struct.unpack(">IIBB", data[16:26])
idat = b"".join(data[i + 8:i + 8 + struct.unpack(">I", data[i:i + 4])[0]]
                for i in range(8, len(data)) if data[i + 4:i + 8] == b"IDAT")
raw = zlib.decompress(idat)
bpp = {2: 3, 6: 4}[ctype]
stride = w * bpp + 1
# Undo PNG filters only roughly: count filter-0 rows' pixels with the mode colours.
seen = set()
prev = bytearray(w * bpp)
for y in range(h):
    f, row = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for x in range(len(row)):
        a = row[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: row[x] = (row[x] + a) & 255
        elif f == 2: row[x] = (row[x] + b) & 255
        elif f == 3: row[x] = (row[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            row[x] = (row[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, len(row), bpp):
        seen.add(bytes(row[x:x + 3]))
    prev = row
red, blue = bytes.fromhex("d62728"), bytes.fromhex("1f77b4")
assert red in seen and blue in seen, "mode colours not rendered"
print("screenshot %dx%d with buffered red and direct blue lines" % (w, h))
PY
echo "PASS: SVG valid and rendered by Chromium"
