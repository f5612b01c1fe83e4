#!/usr/bin/env bash
# Write notifwait's bash completion to stdout from the options its --help
# lists: every option there is completed, and one that takes an argument
# (an upper-case word after it) completes that argument, not an option.
#   usage: gen-completion.sh path/to/notifwait
set -euo pipefail
bin=${1:?usage: $0 path/to/notifwait}
help=$("$bin" --help)

# "  -p, --pid PID   ..." or "      --syscall NAME ...": short long arg,
# "-" for none.
options=$(awk '
	/^  -[A-Za-z0-9], --[a-z0-9]/ { s = substr($1, 1, 2); rest = substr($0, 7) }
	/^      --[a-z0-9]/ { s = "-"; rest = substr($0, 7) }
	/^  -[A-Za-z0-9], --[a-z0-9]/ || /^      --[a-z0-9]/ {
		split(rest, w, " ")
		l = w[1]; a = "-"
		# the argument follows the option after one space; the text after two
		if (substr(rest, length(l) + 1, 2) ~ /^ [A-Z]/) a = w[2]
		print s, l, a
	}' <<<"$help")
opts=() with_arg=() files=()
while read -r short long arg; do
	opts+=("$long")
	[ "$short" != - ] && opts+=("$short")
	[ "$arg" = - ] && continue
	with_arg+=("$long")
	[ "$short" != - ] && with_arg+=("$short")
	case $arg in
	FILE | PATH)
		files+=("$long")
		[ "$short" != - ] && files+=("$short")
		;;
	esac
done <<<"$options"
[ ${#opts[@]} -gt 0 ] || { echo "gen-completion: no options in $bin --help" >&2; exit 1; }

# A case pattern; one that matches no word when the list is empty.
join() {
	local IFS='|'
	[ $# -gt 0 ] && echo "$*" || echo "--nw-none"
}
cat <<END
# bash completion for notifwait; generated from notifwait --help by
# packaging/gen-completion.sh: do not edit.
_notifwait()
{
	local cur prev words cword i
	_init_completion || return

	for ((i = 1; i < cword; i++)); do
		if [[ \${words[i]} == -- ]]; then
			_command_offset \$((i + 1))
			return
		fi
	done
	case \$prev in
	--backend)
		COMPREPLY=(\$(compgen -W 'auto fentry kprobe tracepoint' -- "\$cur"))
		return ;;
	-p | --pid | -s | --supervisor)
		_pids
		return ;;
	$(join "${files[@]}"))
		_filedir
		return ;;
	$(join "${with_arg[@]}"))
		return ;;
	esac
	if [[ \$cur == -* ]]; then
		COMPREPLY=(\$(compgen -W '${opts[*]} --' -- "\$cur"))
	fi
} &&
	complete -F _notifwait notifwait
END
