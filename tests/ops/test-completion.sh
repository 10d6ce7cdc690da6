#!/bin/bash
# SPDX-License-Identifier: MIT
# bash completion (cli/completion.c, `pagecliff __completion bash`) against
# the command table as --help and the parser show it: the commands; each
# command's options (every one --help lists, and nothing the parser does not
# know); for each option with a value, files, directories or exactly the
# words the parser's own error message lists for a bad value; operands
# (files, pids, none, or a command after run's --).  The completion function is
# driven as bash drives it, through COMP_WORDS and COMP_CWORD, with words
# split at '=' as bash's COMP_WORDBREAKS splits them and not.
set -u
pc=${PAGECLIFF:?PAGECLIFF is not set}
. "$(dirname "$0")/../harness.sh"
make_tmpdir tmp "${TMPDIR:-/tmp}"
checks=0

"$pc" __completion bash >"$tmp/pagecliff.bash" || fail "__completion bash: exit $?"
# The installed copy, when the build made one, is the same text.
if [ -n "${PAGECLIFF_BUILDDIR:-}" ] && [ -f "$PAGECLIFF_BUILDDIR/cli/pagecliff.bash" ]; then
	cmp -s "$tmp/pagecliff.bash" "$PAGECLIFF_BUILDDIR/cli/pagecliff.bash" ||
		fail "build/cli/pagecliff.bash differs from __completion's output"
fi
"$pc" __completion zsh >/dev/null 2>&1 && fail "__completion zsh: exit 0 for a shell it cannot do"
# shellcheck disable=SC1091
. "$tmp/pagecliff.bash" || fail "the script does not load"
complete -p pagecliff | grep -q -- '-F _pagecliff pagecliff' || fail "not registered: $(complete -p pagecliff)"

# complete WORD...: the candidates for the last word, sorted, once each, one a line.
complete_words() {
	COMP_WORDS=(pagecliff "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_pagecliff
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort -u
}

# expect WANT WORD...: the candidates are exactly WANT (words separated by blanks).
expect() {
	local want got
	want=$(printf '%s\n' $1 | sed '/^$/d' | sort -u)
	shift
	got=$(complete_words "$@")
	checks=$((checks + 1))
	[ "$got" = "$want" ] || fail "pagecliff $* <TAB>: got [$(echo $got)], want [$(echo $want)]"
}

# A directory to complete file names in.
mkdir "$tmp/w" "$tmp/w/zdir" && : >"$tmp/w/zfile" || fail "cannot make the fixture"
cd "$tmp/w" || exit 1

commands=$("$pc" --help | sed -n 's/^  \([a-z][a-z]*\)  .*/\1/p')
[ -n "$commands" ] || fail "pagecliff --help lists no commands"
expect "$commands help" ""
expect "--help --version" -
expect "$(echo "$commands" | grep '^c')" c
expect "$commands" help ""

for c in $commands; do
	"$pc" "$c" --help >"$tmp/help" || fail "$c --help: exit $?"
	# "  -m, --mode MODE  ...", "      --stats[=FILE]  ...": options, values
	# (a value is upper case, or words with '|' or ':')
	sed -n 's/^  \(    \)\{0,1\}\(-[A-Za-z0-9], \)*--\([a-z0-9_-]*\)\(\[=[A-Z]*\]\| [A-Z0-9][^ ]*\| [^ ]*[|:][^ ]*\)\{0,1\}.*/\3\t\4/p' "$tmp/help" \
		>"$tmp/rows"
	[ -s "$tmp/rows" ] || fail "$c --help lists no options"
	offered=$(complete_words "$c" - | sed 's/=$//')
	# each option --help lists is offered, long and short
	listed=$(sed -n 's/^  \(    \)\{0,1\}\(\(-[A-Za-z0-9], \)*\)--\([a-z0-9_-]*\).*/\2--\4/p' "$tmp/help" |
		 tr -d ',' | tr ' ' '\n' | sed '/^$/d' | sort)
	for o in $listed; do
		checks=$((checks + 1))
		echo "$offered" | grep -qx -- "$o" || fail "$c: $o is in --help but not offered"
	done
	# each option offered is one the parser knows (the unlisted are aliases)
	for o in $offered; do
		echo "$listed" | grep -qx -- "$o" && continue
		checks=$((checks + 1))
		# (refused after it, so that nothing runs)
		"$pc" "$c" "$o" --pagecliff-bogus >/dev/null 2>"$tmp/err" </dev/null &&
			fail "$c $o --pagecliff-bogus: exit 0"
		grep -q "unknown option '$o'" "$tmp/err" && fail "$c: $o is offered but unknown: $(cat "$tmp/err")"
	done
	while IFS=$'\t' read -r name value; do
		value=${value# }
		case $value in
		"") # no value: what follows is an operand
			expect "$(complete_words "$c" z)" "$c" "--$name" z ;;
		*FILE* | PATH)
			if [ "${value#[}" != "$value" ]; then
				expect "--$name=zdir --$name=zfile" "$c" "--$name=z"
				expect "zdir zfile" "$c" "--$name" = "z"
			else
				expect "zdir zfile" "$c" "--$name" "z"
				expect "zdir zfile" "$c" "--$name" = "z"
			fi ;;
		DIR*) expect "zdir" "$c" "--$name" "z" ;;
		*)
			# the words the parser names when it refuses an unknown value
			"$pc" "$c" "--$name" pagecliff-bogus --pagecliff-bogus </dev/null >/dev/null 2>"$tmp/err"
			# ("unknown mode 'x' (auto, ...)"); a value with '|' is its words
			words=$(sed -n "s/^[^:]*: unknown .*'pagecliff-bogus'.* (\([a-z0-9_, -]*\))$/\1/p" \
				"$tmp/err" | tr -d ,)
			case $value in *"|"*) [ -n "$words" ] || words=$(echo "$value" | tr '|' ' ') ;; esac
			expect "$words" "$c" "--$name" ""
			if [ -n "$words" ]; then
				first=$(echo "$words" | cut -d' ' -f1)
				expect "--$name=$first" "$c" "--$name=$first"
				expect "$first" "$c" "--$name" = "$first"
			fi ;;
		esac
	done <"$tmp/rows"
done

# operands: files, none, another program's command line
expect "zdir zfile" cat z
expect "zdir zfile" cp -r zfile z
expect "zdir zfile" cat --mode direct z
expect "" watch ""
# attach's operands are pids: the processes of /proc that start with what
# is typed (this shell's among them), never file names
got=$(complete_words attach "$$")
checks=$((checks + 1))
echo "$got" | grep -qx "$$" || fail "attach $$ <TAB>: got [$(echo $got)], want $$ among them"
echo "$got" | grep -vqx "$$[0-9]*" && fail "attach $$ <TAB>: got [$(echo $got)], not only pids from $$"
expect "" attach z
expect "" attach --for 5s "$$" z
expect "" doctor ""
compgen -c -- pagecliff-no-such- | grep -q . && fail "compgen -c finds pagecliff-no-such-"
expect "$(compgen -c -- base64 | sort -u)" run -- base64
expect "$(compgen -c -- base64 | sort -u)" run --mode off -- base64
got=$(complete_words run -- cat z)
checks=$((checks + 1))
echo "$got" | grep -qx zfile || fail "run -- cat z <TAB>: got [$(echo $got)], want zfile among them"
# bench --mode takes a list: each word after a comma
expect "buffered,direct buffered,dontcache buffered,dropbehind" bench --mode buffered,d

echo "completion: $checks checks against the command table"
