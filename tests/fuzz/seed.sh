#!/bin/sh
# Seeds the corpus of one harness, build/fuzz/seed/<name>/, from the
# repository's test fixtures, golden tests, example content and parsers,
# and ../shared/testdata when it is there.  Usage: seed.sh NAME DIR
set -eu
name=$1
out=$2
rm -rf "$out"
mkdir -p "$out"

# put FILE [PREFIX-BYTE]: one seed, the file's bytes after an optional
# selector byte (an octal escape for printf).
put() {
	{ [ -z "${2:-}" ] || printf "\\$2"; cat "$1"; } >"$(mktemp "$out/seed.XXXXXX")"
}
# A seed from text on stdin.
put_stdin() {
	cat >"$(mktemp "$out/seed.XXXXXX")"
}

shared=../shared/testdata
md_files() {
	find content tests/golden -name '*.md' | sort
}
# The Markdown body of a report: what follows its front matter.
body() {
	awk 'NR == 1 && /^---[ \t\r]*$/ { fm = 1; next } fm && /^---[ \t\r]*$/ { fm = 0; next } !fm' "$1"
}
# Every fenced directive of a kind in the .md files, one seed each.
directives() {
	kind=$1 byte=$2
	for f in $(md_files); do
		awk -v kind="$kind" -v dir="$out" -v pre="$kind" '
			$0 ~ "^[ \t>*-]*```+ *\\{" kind "\\}" { on = 1; k++; file = "seed-" pre "-" FILENAME "-" k; gsub("/", "_", file); file = dir "/" file; next }
			on && /^[ \t>]*```/ { on = 0; close(file); next }
			on { print > file }' "$f" 2>/dev/null || true
	done
	# The awk above names its files after the report; prefix the selector.
	for s in "$out"/*"$kind"*; do
		[ -f "$s" ] || continue
		{ printf "\\$byte"; cat "$s"; } >"$s.seed" && rm -f "$s"
	done
}

case $name in
fuzz_frontmatter)
	for f in $(md_files); do put "$f"; done
	printf -- '---\ntitle: x\ndate: 2024-02-30\ndraft: maybe\nruns:\n  a: cerebras/bs512.log\n  s: { glob: "cerebras/bs*.log", parser: cerebras, name_pattern: '"'"'bs(?<bs>\\d+)'"'"' }\n---\nbody\n' | put_stdin
	;;
fuzz_yamldoc)
	for f in parsers/*.yaml site.yaml $(find tests/fixtures content -name '*.yaml' -o -name '*.yml' | sort); do
		put "$f" 000
		put "$f" 003
	done
	[ -d "$shared/mustache-spec" ] && for f in "$shared"/mustache-spec/*.yml; do put "$f" 000; done
	;;
fuzz_expr)
	# Every inline value of the examples: "expr\0spec".
	for f in $(md_files); do
		grep -o '{{[^}]*}}' "$f" | sed 's/^{{ *//; s/ *}}$//' || true
	done | sort -u | while IFS= read -r e; do
		case $e in
		*' :'*) printf '%s\0%s' "${e% :*}" "${e##* :}" | put_stdin ;;
		*) printf '%s' "$e" | put_stdin ;;
		esac
	done
	for e in 'mean(cs512.train.loss) * 2 - 1 / 3' 'cs.final_loss' 'round(percentile(cs512.train.rate, 90), 2)' \
		"llama.rows[batch_size=512].throughput" 'not (1 < 2 and "a" == '"'b'"') or true' 'std(cs512.train.step)'; do
		printf '%s\0.2f' "$e" | put_stdin
	done
	;;
fuzz_format)
	# 7.125, 1234567, -0.0, 1e308, NaN as little-endian doubles.
	for d in '\000\000\000\000\000\200\034\100' '\000\000\000\000\207\326\062\101' \
		'\000\000\000\000\000\000\000\200' '\020\214\267\245\255\314\337\177' \
		'\000\000\000\000\000\000\370\177'; do
		for s in .2f ,.0f .1% .3e .4g d ,d .100f; do
			{ printf "$d"; printf '%s' "$s"; } | put_stdin
		done
	done
	;;
fuzz_claim)
	# A byte (1: "expect" required), the value 7.125 and the committed
	# 174.282130137 as little-endian doubles, then a claim: every form,
	# and the claims of the examples.
	{
		for c in '< 8' '<= 7.125' '> -1' '>= 1e3' '== 7.125' '!= 0' '7.1 ± 0.025' \
			'1200 +- 5%' '±5%' '+- 0.2' '7.0 to 7.2' '> 98%' '=< 8' '< nan' \
			'7.1 ± -0.1' '8 to 7' '< 8 ms'; do
			printf 'expect %s\n' "$c"
		done
		for f in $(md_files); do
			grep -o '{{[^}]*| *expect[^}]*}}' "$f" | sed 's/^.*| *//; s/ *}}$//' || true
		done
	} | sort -u | while IFS= read -r c; do
		{ printf '\001\000\000\000\000\000\200\034\100\061\364\307\065\007\311\145\100'
		  printf '%s' "$c"; } | put_stdin
	done
	;;
fuzz_directive)
	directives table 000
	directives log 001
	directives chart 002
	;;
fuzz_parserdef)
	for f in parsers/*.yaml $(find content tests -path '*/parsers/*.yaml' | sort); do
		stem=$(basename "$f" .yaml)
		log=$(find tests/fixtures/"$stem" -type f 2>/dev/null | sort | head -n 1)
		{ cat "$f"; printf '\0'; [ -z "$log" ] || cat "$log"; } | put_stdin
	done
	;;
fuzz_parsers)
	# The selector byte is the parser's index among parsers/*.yaml,
	# which are embedded in name order.
	i=0
	for p in $(ls parsers/*.yaml | sort); do
		stem=$(basename "$p" .yaml)
		for f in $(find tests/fixtures/"$stem" tests/corpus/"$stem" tests/fixtures/engine -type f ! -name SOURCES ! -name "*.facts" 2>/dev/null | sort); do
			put "$f" "$(printf '%03o' "$i")"
		done
		i=$((i + 1))
	done
	;;
fuzz_structured)
	for f in $(find tests/fixtures -name '*.json' | sort); do put "$f" 000; done
	for f in $(find tests/fixtures -name '*.yaml' | sort); do put "$f" 001; done
	for f in $(find tests/fixtures content -name '*.csv' | sort); do put "$f" 002; done
	;;
fuzz_xml)
	for f in $(find tests/corpus tests/fixtures -name '*.xml' | sort); do
		put "$f" 000
		put "$f" 001
	done
	;;
fuzz_dllogger)
	for f in $(find tests/corpus/dllogger -type f ! -name SOURCES ! -name "*.facts" | sort); do put "$f"; done
	;;
fuzz_notebook)
	for f in $(find tests/fixtures tests/corpus -name '*.ipynb' | sort); do put "$f"; done
	;;
fuzz_imagesize)
	for f in $(find content tests -name '*.png' -o -name '*.jpg' -o -name '*.jpeg' -o -name '*.gif' -o -name '*.webp' | sort | head -50); do
		put "$f"
	done
	;;
fuzz_tfevents)
	i=0
	for f in $(find tests/fixtures/tensorboard tests/corpus/tensorboard -name 'events.out.tfevents.*' ! -name '*.facts' | sort); do
		put "$f" "$(printf '%03o' "$i")"
		i=$((i + 1))
	done
	;;
fuzz_jsonl)
	for f in $(find tests/fixtures tests/corpus -name '*.jsonl' -o -name '*.ndjson' | sort); do put "$f" 000; done
	printf '\000{"step": 1, "loss": 2.5}\n{"step": 2, "loss": 2.1\n\n{"a": [1, {"b": null}]} x\n{"step": 3}\r\n' | put_stdin
	;;
fuzz_csv)
	for f in $(find tests/fixtures tests/corpus content -name '*.csv' | sort); do put "$f" 000; done
	for f in $(find tests/fixtures tests/corpus content -name '*.tsv' | sort); do put "$f" 001; done
	printf '\002JobID|State|Elapsed\n1|COMPLETED|00:01:02\n1.batch|"FAILED"|x|y\n' | put_stdin
	printf '\010 1,0.5\n2,"0.4\n' | put_stdin
	;;
fuzz_mustache)
	for f in templates/*.html; do put "$f"; done
	printf '%s\0%s\0%s' '{{<base}}{{$body}}x{{/body}}{{/base}}' '{{#reports}}{{title}}{{/reports}}' \
		'<h1>{{$body}}d{{/body}}</h1>{{>p}}' | put_stdin
	printf '%s\0%s\n' '{{=<% %>=}}<% title %><%={{ }}=%>{{! c }}{{^empty}}none{{/empty}}{{#list}}{{.}}{{/list}}{{{title}}}{{&title}}{{site.title}}' \
		'  {{>p}}' | put_stdin
	if [ -d "$shared/mustache-spec" ]; then
		# The one-line templates of the spec's tests.
		sed -n "s/^ *template: *\"\\(.*\\)\" *$/\\1/p; s/^ *template: *'\\(.*\\)' *$/\\1/p" \
			"$shared"/mustache-spec/*.yml | while IFS= read -r t; do
			printf '%b' "$t" | put_stdin
		done
	fi
	;;
fuzz_numlint)
	# Each report's body as prose (selector 0) and as Markdown (1), and
	# the shared seed reports, which hold hand-typed numbers.
	for f in $(md_files); do
		{ printf '\000'; body "$f"; } | put_stdin
		{ printf '\001'; body "$f"; } | put_stdin
	done
	if [ -d ../shared/seeds ]; then
		for f in ../shared/seeds/*.txt; do put "$f" 001; done
	fi
	printf '\0002.31 1,024 93.4%% -0.25 1.5e-3 v1.2.3 2024-04-08 12:30 1st A100 [12] 512 7\n' | put_stdin
	printf '\001<!-- logdown: allow-number 2.31 x -->\n2.31 and 93.4%%\n\n2.31 <!-- logdown: allow -->\n' | put_stdin
	;;
fuzz_doc)
	for f in $(md_files); do
		body "$f" | put_stdin
	done
	if [ -f "$shared/gfm-spec/spec.txt" ]; then
		# Each example of the GFM spec ("→" stands for a tab).
		awk -v dir="$out" -v fence="$(printf '%32s' '' | tr ' ' '`')" '
			index($0, fence " example") == 1 { on = 1; k++; file = dir "/gfm" k; next }
			on && $0 == "." { on = 0; close(file); next }
			on && $0 == fence { on = 0; next }
			on == 1 { gsub("→", "\t"); print > file }' "$shared/gfm-spec/spec.txt"
	fi
	# callouts, image figures and tabs at their edges (the golden cases
	# above hold the common forms)
	printf '> [!NOTE]\n> a\n\n> [!tip]\n\n- > [!WARNING]\n  > b\n\n> > [!CAUTION]\n> > c\n\n> [!NOTES] x\n' | put_stdin
	printf '![a](x.png){#fig-a width=60%% height="3cm"}\n\n![b](y.png "t"){widht=1 #fig-}\n\nx ![c](z.svg){height=1em} y ![d](w.png){#fig-d}\n\n![e *f*](v.png){#fig-e\n' | put_stdin
	printf '::: tabs\n## A\na\n::: tabs\n## B\n:::\n:::\n\n- ::: tabs\n  ## C\n  :::\n\n::: {.panel-tabset}\n#\n:::\n::: tabz\n> ::: tabs\n::: tabs\n' | put_stdin
	;;
fuzz_attrs)
	# the attribute blocks of the examples and goldens, then Pandoc's forms
	grep -rhoE '\{[#.][^}]*\}' content tests/golden --include='*.md' 2>/dev/null | sort -u |
		while IFS= read -r a; do printf '%s' "$a" | put_stdin; done
	for a in '{#sec-results}' '{#fig-loss width=60% height="3cm"}' \
		'{.python .numberLines hl_lines="3-5"}' "{ #a .b k='x y' }" '{-}' '{=html}' \
		'{#a k="q \" \\ x"}' '{#}' '{k=}' '{#a #b}' '{#a width=60%'; do
		printf '%s' "$a" | put_stdin
	done
	;;
fuzz_htmltag)
	# the raw HTML of the examples and goldens, a rendered page's headings,
	# then the tokenizer's corners
	grep -rhoiE '<(img|h[1-6]|div|p|a)[^>]*>' content tests/golden --include='*.md' 2>/dev/null |
		sort -u | while IFS= read -r a; do printf '%s' "$a" | put_stdin; done
	for a in '<img src="a.png" width="300">' "<IMG\n SRC='b.png'>" '<img src=c.png alt=x/>' \
		'<!-- <img src=x> --><img src=y>' '<!--><img src=a>' '<script><img src=a></script>' \
		'<a title="<img src=a>"><img src=b>' '<img src="a&amp;b&#39;&#x26;&copy;">' \
		'<h2 id="results">Results</h2>' '<img src' '<img src="cut' '<!-- open'; do
		printf '%b' "$a" | put_stdin
	done
	;;
fuzz_bib)
	# the real .bib files (selector 0: BibTeX), the example's, and a
	# CSL-JSON item (selector 1); the prose of the examples, for the
	# citation scanner
	for f in tests/fixtures/bib/*.bib $(find content -name '*.bib' | sort); do put "$f" 000; done
	{ printf '\001'; printf '[{"id": "lie2023", "type": "article-journal", "title": "T", "author": [{"family": "Lie", "given": "Sean"}, {"literal": "NVIDIA"}], "issued": {"date-parts": [[2023, 4]]}, "DOI": "10.1/x"}]'; } | put_stdin
	for f in $(find content -name index.md | sort); do put "$f" 000; done
	;;
fuzz_dot)
	# the ```dot fences of the examples (selector 1: the whole fence,
	# its info string first), then small graphs of every kind and the
	# refused forms (selector 0: the checks alone)
	for f in $(md_files); do
		awk -v dir="$out" '
			/^[ \t>]*```+ *(dot|graphviz|\{\.dot)/ { on = 1; k++; file = dir "/seed-dot-" k "-" FILENAME; gsub("/", "_", file); sub("^[^/]*_", dir "/", file); info = $0; sub("^[ \t>]*```+ *", "", info); printf "\001%s\n", info > file; next }
			on && /^[ \t>]*```/ { on = 0; close(file); next }
			on { print > file }' "$f" 2>/dev/null || true
	done
	for g in 'digraph { a -> b [label="x"] }' 'graph { a -- b -- c; subgraph cluster_0 { d } }' \
		'strict digraph G { rankdir=LR; node [shape=box, style=filled]; a -> {b c} }' \
		'digraph { a [label=<<B>bold</B><BR/>x>]; a -> a }' 'digraph { a [image="/etc/passwd"] }' \
		'digraph { a [label=<<IMG SRC="x"/>>] }' 'digraph { a [URL="javascript:x"] }' \
		'digraph { a -> ; }' 'digraph { _background="x" }' 'digraph { a -> b [label="{{ x }}"] }'; do
		printf '\000%s' "$g" | put_stdin
		printf '\001dot {#fig-a caption="c"}\n%s\n' "$g" | put_stdin
	done
	;;
fuzz_codeblock)
	# info strings in each spelling, good and bad, each with a sample
	for a in 'python' '{.python .numberLines startFrom="10" hl_lines="2-3"}' \
		'bash {.numberLines hl_lines="1 3-5"}' 'python numberLines hl_lines="2"' \
		'python linenums="7"' 'text any words' '{hl_lines="5-3 x 0 9" startFrom=ab}' \
		'python hl_lines="1" numberLnes' '{.numberlines}' '{log}' 'py {#id k=}'; do
		printf '%s\n#SBATCH -N 2\nx = 1\n\nprint("a")\n' "$a" | put_stdin
	done
	;;
fuzz_highlight)
	# a sample per language, after its index in hl_names() (the order
	# of src/resolve/highlight.c's aliases); the language files of
	# lang/ as "fuzz" (selector 0200), each with a sample after a NUL
	names="sh bash shell sbatch zsh console shell-session python py python3 c h cpp c++ cxx
cuda cu fortran f90 f julia jl yaml yml json toml makefile make cmake diff patch sql log markdown md"
	for f in tests/highlight/*.txt; do
		lang=$(basename "$f" .txt) i=0
		for n in $names; do
			[ "$n" = "$lang" ] && put "$f" "$(printf '%o' "$i")"
			i=$((i + 1))
		done
	done
	for f in lang/*.lang; do
		{ printf '\200'; sed 's/<language id="[^"]*"/<language id="fuzz"/' "$f"; printf '\000';
		  cat tests/highlight/log.txt; } | put_stdin
	done
	;;
fuzz_suggest)
	# real logs: the corpus of every kind, the undetected fixtures
	for f in $(find tests/corpus tests/fixtures/undetected tests/fixtures/engine -type f ! -name SOURCES ! -name "*.facts" ! -name SCORE ! -name README.md 2>/dev/null | sort); do
		head -c 65536 "$f" | put_stdin
	done
	;;
fuzz_cache)
	# The cache files of a real build, sealed with the harness's key
	# (32 bytes of 0x42): each as a body (header, seal and checksum cut
	# off; selector = its kind) and whole but its checksum (kind | 4); a
	# run store whole.
	bin=./logdown
	[ -x "$bin" ] || bin=build/asan/logdown
	if [ -x "$bin" ]; then
		tmp=$(mktemp -d)
		mkdir -p "$tmp/home/logdown" "$tmp/p/content" "$tmp/p/logs"
		chmod 700 "$tmp/home/logdown"
		head -c 32 /dev/zero | tr '\000' '\102' >"$tmp/home/logdown/key"
		chmod 600 "$tmp/home/logdown/key"
		cp tests/fixtures/cerebras/bs512.log "$tmp/p/logs/a.log"
		printf -- '---\ntitle: A\nruns:\n  cs: ../logs/a.log\n---\n{{ cs.final_loss }}\n' >"$tmp/p/content/a.md"
		XDG_CACHE_HOME="$tmp/home" "$bin" build "$tmp/p" >/dev/null 2>&1 || true
		version=$(sed -n 's/^#define LOGDOWN_VERSION "\(.*\)"/\1/p' include/base/version.h)
		hlen=$((38 + ${#version}))
		for f in "$tmp/p/.logdown-cache/files" "$tmp/p/.logdown-cache"/runs/*.run "$tmp/p/.logdown-cache"/reports-*; do
			[ -f "$f" ] || continue
			case $f in */files) k=1 ;; *.run) k=2 ;; *) k=3 ;; esac
			if [ $k = 2 ]; then
				# a run store, whole: fuzz_cache takes it as it is
				{ printf '\002'; cat "$f"; } | put_stdin
				continue
			fi
			n=$(wc -c <"$f")
			{ printf "\\$(printf '%03o' $k)"; tail -c +$((hlen + 1)) "$f" | head -c $((n - hlen - 40)); } | put_stdin
			{ printf "\\$(printf '%03o' $((k + 4)))"; head -c $((n - 8)) "$f"; } | put_stdin
		done
		rm -rf "$tmp"
	fi
	# a file list whose row keeps a proof of a file that grew since:
	# written by the harness itself (FUZZ_CACHE_SEED), which knows the file
	if [ -x build/fuzz/fuzz_cache ]; then
		printf '\001' >"$out/.in"
		FUZZ_CACHE_SEED="$(mktemp "$out/seed.XXXXXX")" build/fuzz/fuzz_cache "$out/.in" >/dev/null 2>&1 || true
		rm -f "$out/.in"
	fi
	;;
fuzz_request)
	# what a browser, a crawler and an attacker ask serve for
	for u in / /index.html /r /r/ /r/logs/run.log /r/logs/deep/a%20b%25.txt \
		/out /out/secret.html /r/secret.html /r/pipe.log /.logdown-site \
		//evil.example /%2fevil.example /r/%2e%2e/%2e%2e/etc/passwd /r/..%2f..%2f \
		/a%00b /%5cwindows /r//logs///deep /r/logs/deep/ '/r?x=1' /%zz /%e2%82%ac; do
		printf '%s' "$u" | put_stdin
	done
	;;
fuzz_runstore)
	# a fixture's store (selector 0, fixture N), as written and with an
	# edit in its header, its sections and its directory
	for n in 0 1 2 3 4 5; do
		printf "\\000\\00$n" | put_stdin
		printf "\\000\\00$n\\070\\000\\000\\000\\001" | put_stdin
		printf "\\000\\00$n\\200\\001\\000\\000\\377" | put_stdin
		printf "\\000\\00$n\\377\\377\\377\\377\\004" | put_stdin
	done
	;;
fuzz_scanstate)
	# each log (first byte) cut a quarter, half and most of the way
	# (third byte), its real state (second byte even) as taken and with
	# one edit
	for n in 0 1 2 3 4 5 6; do
		for c in 100 200 350; do
			printf "\\00$n\\000\\$c" | put_stdin
			printf "\\00$n\\000\\$c\\070\\000\\000\\000\\001" | put_stdin
		done
	done
	;;
fuzz_chartcarry)
	# a genuine carry of a line (0) and of a scatter (2), drawn as an
	# SVG alone and (4, 6) as a PNG too, as kept and with an edit in its
	# counts, its hasher state and its projections
	for t in 0 2 4 6; do
		printf "\\00$t" | put_stdin
		printf "\\00$t\\010\\000\\000\\000\\001" | put_stdin
		printf "\\00$t\\200\\000\\000\\000\\004" | put_stdin
		printf "\\00$t\\000\\004\\000\\000\\377" | put_stdin
	done
	;;
fuzz_mathml)
	# KaTeX's MathML for a report's usual formulas (tests/fixtures/mathml)
	for f in tests/fixtures/mathml/*.xml; do put "$f"; done
	;;
*)
	echo "seed.sh: no seeds for $name" >&2
	;;
esac
echo "$name: $(ls "$out" | wc -l) seeds"
