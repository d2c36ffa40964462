"""Report plots are real PNG files: signature, IHDR size, and more than one colour in the pixels."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from matplotlib.image import imread

from nl2sparql.evaluation.aggregate import scores_by_category, scores_by_hops
from nl2sparql.evaluation.plots import plot_latency_histogram, plot_scores_by_category, plot_scores_by_hops

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RECORDS = [
    {"category": "composition", "hops": 2, "hits@1": 1.0, "f1": 0.5},
    {"category": "composition", "hops": 1, "hits@1": 0.0, "f1": 0.0},
    {"category": "superlative", "hops": 2, "hits@1": 1.0, "f1": 1.0},
    {"category": "comparative", "hops": 3, "hits@1": 0.0, "f1": 0.2},
]


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the IHDR chunk, which must come first."""
    data = path.read_bytes()
    assert data[:8] == PNG_SIGNATURE
    length, kind = struct.unpack(">I4s", data[8:16])
    assert kind == b"IHDR" and length == 13
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def assert_real_png(path: Path, min_bytes: int = 5_000) -> None:
    assert path.stat().st_size > min_bytes
    width, height = png_size(path)
    pixels = imread(path)
    assert pixels.shape[:2] == (height, width)
    colours = np.unique(pixels.reshape(-1, pixels.shape[-1]), axis=0)
    assert len(colours) > 10, "the image is blank or nearly so"
    assert not list(path.parent.glob(f".{path.name}.*")), "a temporary file was left behind"


def test_scores_by_category_plot(tmp_path: Path) -> None:
    out = plot_scores_by_category(scores_by_category(RECORDS), tmp_path / "by_category.png")
    assert out == tmp_path / "by_category.png"
    assert_real_png(out)
    assert png_size(out)[0] >= 400


def test_scores_by_hops_plot_in_a_new_folder(tmp_path: Path) -> None:
    out = plot_scores_by_hops(scores_by_hops(RECORDS), tmp_path / "report" / "by_hops.png", metrics=["f1"])
    assert_real_png(out)


def test_latency_histogram(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    latencies = {"plan": list(rng.gamma(4.0, 10.0, 300)), "execute": list(rng.gamma(2.0, 2.0, 300))}
    out = plot_latency_histogram(latencies, tmp_path / "latency.png")
    assert_real_png(out)
    assert png_size(out) == (600, 360)
    # A single repeated value still plots (no zero-width bins).
    assert_real_png(plot_latency_histogram({"plan": [5.0, 5.0]}, tmp_path / "flat.png"), min_bytes=2_000)


def test_plots_refuse_empty_input_without_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no groups"):
        plot_scores_by_category({}, tmp_path / "x.png")
    with pytest.raises(ValueError, match="no latencies"):
        plot_latency_histogram({"plan": []}, tmp_path / "y.png")
    with pytest.raises(ValueError, match="has no score 'em'"):
        plot_scores_by_hops(scores_by_hops(RECORDS), tmp_path / "z.png", metrics=["em"])
    assert list(tmp_path.iterdir()) == []
