#!/usr/bin/env python3
"""gen_mathcode.py DIR [FORMULAS] [CODE_LINES]: the project of make bench's
row (m): one report of FORMULAS formulas (default 500; half inline in
sentences, half display, a tenth of those labelled and referenced) and
CODE_LINES lines of highlighted code (default 5,000), in blocks of the
languages of tests/highlight/ (their samples, repeated), so that both
logdown and pandoc --mathml have the same Markdown to read."""
import os
import sys

out = sys.argv[1]
nform = int(sys.argv[2]) if len(sys.argv) > 2 else 500
ncode = int(sys.argv[3]) if len(sys.argv) > 3 else 5000
here = os.path.dirname(os.path.abspath(__file__))
samples = os.path.join(here, "..", "..", "tests", "highlight")

# What students write (FLOP counts, rooflines, statistics, numerics);
# {a}, {b}, {c} take the formula's index so that no two are the same.
templates = [
    r"F = 2 \cdot {a} \cdot {b} \cdot {c}",
    r"P_{{\max}} = \min\left(\pi, \beta \cdot I\right), \quad I = \frac{{{a}}}{{{b}}}",
    r"\bar{{x}} = \frac{{1}}{{n}} \sum_{{i=1}}^{{n}} x_i, \quad n = {a}",
    r"\sigma = \sqrt{{\frac{{1}}{{n-1}} \sum_{{i=1}}^{{{a}}} (x_i - \bar{{x}})^2}}",
    r"S(p) = \frac{{T_1}}{{T_p}} = \frac{{{a}}}{{{b} + {c}/p}}",
    r"E = \frac{{S(p)}}{{p}} \le 1, \quad p = {a}",
    r"\int_0^{{{a}}} e^{{-x^2/{b}}} \, dx \approx {c}",
    r"A = \begin{{pmatrix}} {a} & {b} \\ {c} & 1 \end{{pmatrix}}",
    r"\mathcal{{L}}(\theta) = -\sum_{{k=1}}^{{{a}}} y_k \log \hat{{y}}_k",
    r"f(x) = \begin{{cases}} {a} x & x < {b} \\ {c} & \text{{otherwise}} \end{{cases}}",
    r"\nabla \cdot \mathbf{{E}} = \frac{{\rho}}{{\varepsilon_0}} + {a}",
    r"T = \alpha + \beta n, \quad \alpha = {a}\,\mu\text{{s}}, \beta = {b}\,\text{{ns/B}}",
    r"\lim_{{n \to \infty}} \left(1 + \frac{{{a}}}{{n}}\right)^n = e^{{{a}}}",
    r"\hat{{\beta}} = (X^\top X)^{{-1}} X^\top y + {a}",
    r"B = \frac{{{a} \times {b}\ \text{{B}}}}{{{c}\ \text{{s}}}}",
]

lines = ["---", "title: %d formulas and %d lines of code" % (nform, ncode), "---", ""]
inline = nform // 2
display = nform - inline
k = 0
for i in range(inline):
    t = templates[k % len(templates)].format(a=i + 2, b=i + 3, c=i + 5)
    k += 1
    lines.append("Step %d of the derivation gives $%s$ for the measured run." % (i, t))
    lines.append("")
for i in range(display):
    t = templates[k % len(templates)].format(a=i + 7, b=i + 11, c=i + 13)
    k += 1
    label = " {#eq-f%d}" % i if i % 10 == 0 else ""
    lines.append("$$\n%s\n$$%s" % (t, label))
    lines.append("")
    if i % 10 == 0:
        lines.append("As @eq-f%d shows, the bound holds." % i)
        lines.append("")

names = sorted(f[:-4] for f in os.listdir(samples) if f.endswith(".txt"))
texts = {n: open(os.path.join(samples, n + ".txt")).read().rstrip("\n").split("\n") for n in names}
written = 0
b = 0
while written < ncode:
    lang = names[b % len(names)]
    b += 1
    block = []
    while len(block) < 100:
        block.extend(texts[lang])
    block = block[: min(100, ncode - written)]
    lines.append("```" + lang)
    lines.extend(block)
    lines.append("```")
    lines.append("")
    written += len(block)

os.makedirs(os.path.join(out, "content"), exist_ok=True)
with open(os.path.join(out, "site.yaml"), "w") as f:
    f.write("title: math and code\n")
with open(os.path.join(out, "content", "mathcode.md"), "w") as f:
    f.write("\n".join(lines) + "\n")
