"""Timings of dpnotes.sgd: one DP-SGD epoch of logistic regression, in examples per second.

Run from the book root: ``.venv/bin/python benchmarks/bench_sgd.py``. Prints one
``name<TAB>seconds<TAB>note`` line per measurement (best of three runs); the note gives the
throughput in examples per second (an epoch touches each example once in expectation).
"""

from __future__ import annotations

import timeit
from pathlib import Path

import numpy as np

from dpnotes import sgd

ROOT = Path(__file__).resolve().parents[1]


def main():
    digits = np.loadtxt(ROOT / "data" / "digits.csv", delimiter=",")
    x, y = digits[:, :-1] / 16.0, (digits[:, -1] % 2 == 0).astype(float)
    synthetic = np.random.default_rng(0).normal(size=(100_000, 64))
    labels = (synthetic[:, 0] > 0).astype(float)
    cases = {
        # (features, labels, expected batch size)
        "dp_sgd_epoch_digits_n1797_d64_batch32": (x, y, 32),
        "dp_sgd_epoch_digits_n1797_d64_batch256": (x, y, 256),
        "dp_sgd_epoch_synthetic_n100000_d64_batch1000": (synthetic, labels, 1000),
    }
    for name, (features, target, batch) in cases.items():
        n = target.size

        def run():
            sgd.dp_sgd(features, target, clip_norm=1.0, noise_multiplier=1.0, sampling_probability=batch / n,
                       epochs=1, learning_rate=0.5, rng=np.random.default_rng(1), expected_batch_size=batch)

        seconds = min(timeit.repeat(run, number=1, repeat=3))
        print(f"{name}\t{seconds:.4f}\t{n / seconds:,.0f} examples/s", flush=True)


if __name__ == "__main__":
    main()
