#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The bash completion of tdat and tdatfs, driven as bash drives it
# (COMP_WORDS, COMP_CWORD, COMP_LINE, COMP_POINT), once with
# bash-completion's helpers loaded (when installed) and once without.
# PATH words are completed by the built tdat from the trace's tree.
#   completion.sh COMPLETION-FILE TDAT TRACE [TDATFS]
# The -o names each program's --help lists are all offered (TDATFS, when
# built, for its own options), so an option added later cannot be missed.
. "$(dirname "$0")/../lib/common.sh"

comp_file=$(realpath "$1")
tdat=$(realpath "$2")
trace=$(realpath "$3")
tdatfs=${4:+$(realpath "$4")}
bash_completion=/usr/share/bash-completion/bash_completion
# the completion runs `tdat` by the name typed: the built one
PATH=$(dirname "$tdat"):$PATH
export PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
touch a.dat b.txt
mkdir sub
ln -s "$trace" "$tmp/sub/my trace.dat"

# what bash sets, and where readline cuts words
wordbreaks=$' \t\n"\'><=;|&(:'

# complete_line HELPERS LINE: the sorted COMPREPLY, one a line, for the
# cursor at the end of LINE; HELPERS is "bc" to load bash-completion first.
complete_line() {
	bash --norc --noprofile -c '
		helpers=$1 comp_file=$2 line=$3
		[ "$helpers" = bc ] && . /usr/share/bash-completion/bash_completion
		. "$comp_file"
		COMP_WORDBREAKS=$4
		# split as readline does: at blanks outside quotes, and "=" a
		# word of its own
		COMP_WORDS=() w= q= sq=$(printf "\047")
		for ((i = 0; i < ${#line}; i++)); do
			c=${line:i:1}
			if [ -n "$q" ]; then
				w+=$c
				[ "$c" = "$q" ] && q=
				continue
			fi
			case $c in
			\"|"$sq") q=$c; w+=$c ;;
			\\) w+=${line:i:2}; ((i++)) ;;
			" ") [ -n "$w" ] && COMP_WORDS+=("$w"); w= ;;
			=) [ -n "$w" ] && COMP_WORDS+=("$w"); COMP_WORDS+=("="); w= ;;
			*) w+=$c ;;
			esac
		done
		if [ -n "$w" ] || [ "${line: -1}" = " " ]; then
			COMP_WORDS+=("$w")
		fi
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE=$line COMP_POINT=${#line} COMP_TYPE=9 COMP_KEY=9
		cmd=${COMP_WORDS[0]}
		"_$cmd" "$cmd" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}" | sort
		exit 0
	' complete-line "$1" "$comp_file" "$2" "$wordbreaks"
}

# expect HELPERS LINE WANT...: COMPREPLY is exactly the WANTs (any order)
expect() {
	local helpers=$1 line=$2 got want=
	shift 2
	got=$(complete_line "$helpers" "$line" | tr '\n' ' ')
	(($#)) && want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
	if [ "$got" = "$want" ]; then ok; else
		fail "[$helpers] '$line': got '$got', want '$want'"
	fi
}

# help_opts: the -o names a --help lists, "NAME=" for one with a value.
# tdat: the lines "  NAME" of its Index and Debugging sections; tdatfs:
# the lines "    -o NAME" before its FUSE options.
help_opts() { # tdat|tdatfs HELP-TEXT
	case $1 in
	tdat) awk '/^Index options/ { on = 1 } /^Exit status/ { on = 0 }
		on && /^  [a-z_]+/ { print $1 }' ;;
	tdatfs) awk '/^FUSE options/ { exit } /^    -o [a-z_]+/ { print $2 }' ;;
	esac <<<"$2" | sed 's/=.*/=/' | sort -u
}
tdat_help=$("$tdat" --help 2>&1) || true
tdat_opts=$(help_opts tdat "$tdat_help")
# the parse found the sections (an empty list would check nothing)
for o in index_dir= noindex threads= decode_threads= tep_only; do
	if grep -qx -- "$o" <<<"$tdat_opts"; then ok; else
		fail "tdat --help: no $o among '$(echo $tdat_opts)'"
	fi
done
if [ -n "$tdatfs" ]; then
	tdatfs_opts=$(help_opts tdatfs "$("$tdatfs" --help 2>&1)")
	for o in cache_size= index_dir= threads= decode_threads= eager; do
		if grep -qx -- "$o" <<<"$tdatfs_opts"; then ok; else
			fail "tdatfs --help: no $o among '$(echo $tdatfs_opts)'"
		fi
	done
fi

modes=(plain)
if [ -f "$bash_completion" ]; then
	modes+=(bc)
else
	echo "note: $bash_completion missing: plain bash only" >&2
fi

for m in "${modes[@]}"; do
	# verbs and options
	expect "$m" "tdat " ls cat check index --help --version
	expect "$m" "tdat c" cat check
	expect "$m" "tdat -" -o --progress --help --version
	expect "$m" "tdat ls -" -l -R
	expect "$m" "tdat index -" --check --progress
	expect "$m" "tdat check -" --progress
	expect "$m" "tdat check --progress " a.dat sub
	expect "$m" "tdat index --check " a.dat sub
	# -o before the verb: its names, then the verbs
	# exactly what tdat --help lists
	# shellcheck disable=SC2086
	expect "$m" "tdat -o " $tdat_opts
	expect "$m" "tdat -o noindex,th" noindex,threads=
	expect "$m" "tdat -o index_dir=s" sub
	expect "$m" "tdat -o noindex --progress i" index
	expect "$m" "tdat -o threads=2 ls $trace /ev" /events/
	# TRACE: *.dat and directories; any file when no *.dat matches
	expect "$m" "tdat ls " a.dat sub
	expect "$m" "tdat check b" b.txt
	expect "$m" "tdat check $trace " # nothing after TRACE
	# PATH from the trace's tree: directories end in '/'
	expect "$m" "tdat ls $trace /ev" /events/
	expect "$m" "tdat ls -l $trace ev" events/
	expect "$m" "tdat cat $trace /events/sched/sched_sw" \
		/events/sched/sched_swap_numa/ /events/sched/sched_switch/
	expect "$m" "tdat cat $trace /events/sched/sched_swi" /events/sched/sched_switch/
	expect "$m" "tdat cat $trace /events/sched/sched_switch/fo" \
		/events/sched/sched_switch/format
	expect "$m" "tdat cat $trace /info /per_cpu/cpu0/tr" \
		/per_cpu/cpu0/trace /per_cpu/cpu0/trace_pipe_raw
	expect "$m" "tdat ls sub/my\\ trace.dat /ev" /events/ # TRACE as typed, quoted
	expect "$m" "tdat ls 'sub/my trace.dat' /ev" /events/
	expect "$m" "tdat ls $trace /nowhere/x"
	expect "$m" "tdat ls $tmp/b.txt /ev" # not a trace: nothing
	# tdatfs: options, -o names, TRACE then MOUNTPOINT
	expect "$m" "tdatfs -" -f -d -s -o -h -V --help --version
	# tdatfs's own (each one its --help lists) and the FUSE ones a
	# user sets most
	expect "$m" "tdatfs -o " cache_size= index_dir= noindex threads= \
		decode_threads= tep_only eager max_checkpoints= \
		max_threads= allow_other auto_unmount ro
	if [ -n "$tdatfs" ]; then
		got=$(complete_line "$m" "tdatfs -o ")
		for o in $tdatfs_opts; do
			if grep -qx -- "$o" <<<"$got"; then ok; else
				fail "[$m] 'tdatfs -o ': $o (tdatfs --help) not offered"
			fi
		done
	fi
	expect "$m" "tdatfs -o cac" cache_size=
	expect "$m" "tdatfs -o ro,no" ro,noindex
	# readline cut the word at '=': the reply is what follows it
	expect "$m" "tdatfs -o cache_size=64M,th" 64M,threads=
	expect "$m" "tdatfs -o index_dir=s" sub
	expect "$m" "tdatfs " a.dat sub
	expect "$m" "tdatfs -f $trace " sub
	expect "$m" "tdatfs -o ro -s $trace s" sub
	expect "$m" "tdatfs -o cache_size=1M $trace $tmp/sub " # nothing more
done

# bash-completion's lazy loader finds both commands by name in the layout
# meson installs (tdatfs a link to tdat).
if [ -f "$bash_completion" ]; then
	mkdir -p "$tmp/user/completions"
	cp "$comp_file" "$tmp/user/completions/tdat"
	ln -s tdat "$tmp/user/completions/tdatfs"
	for c in tdat tdatfs; do
		got=$(BASH_COMPLETION_USER_DIR=$tmp/user bash --norc --noprofile -c '
			. /usr/share/bash-completion/bash_completion
			__load_completion "$1" && complete -p "$1"' load "$c" 2>&1) || true
		if [ "$got" = "complete -F _$c $c" ]; then ok; else
			fail "lazy loading of $c: '$got'"
		fi
	done
fi

finish
