#!/usr/bin/env python3
"""gen_jsonl.py SIZE OUT [SEED]: a JSON Lines training log of about SIZE
bytes (100M, 1G), one object a line as a metrics logger appends them
(Hugging Face's log history, wandb, DLLogger): step, epoch, loss,
learning_rate, grad_norm, tokens_per_sec, a split name, and every 50th
line an eval row with keys the others lack (eval_loss, eval_accuracy).
Seeded: the same SIZE and SEED give the same bytes."""
import random
import sys


def size_of(text):
    mult = {"K": 1e3, "M": 1e6, "G": 1e9}
    return int(float(text[:-1]) * mult[text[-1]]) if text[-1] in mult else int(text)


def main():
    target = size_of(sys.argv[1])
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    written = 0
    step = 0
    with open(sys.argv[2], "w") as f:
        lines = []
        while written < target:
            step += 1
            loss = 2.5 / (1 + step / 5000) + rnd.random() * 0.05
            if step % 50 == 0:
                line = ('{"step": %d, "epoch": %.4f, "eval_loss": %.5f, "eval_accuracy": %.4f, '
                        '"split": "eval"}\n' % (step, step / 20000, loss * 1.1, 1 - loss / 3))
            else:
                line = ('{"step": %d, "epoch": %.4f, "loss": %.5f, "learning_rate": %.3e, '
                        '"grad_norm": %.4f, "tokens_per_sec": %.1f, "split": "train"}\n'
                        % (step, step / 20000, loss, 3e-4 * (1 - step / 1e7),
                           0.5 + rnd.random(), 12000 + rnd.random() * 800))
            lines.append(line)
            written += len(line)
            if len(lines) == 10000:
                f.write("".join(lines))
                lines = []
        f.write("".join(lines))


main()
