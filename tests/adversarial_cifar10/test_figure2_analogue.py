"""Our Werpachowski et al. Figure 2 is an analogue on CIFAR-10 (the paper's is ImageNet on VGG16):
the figure's title, its CSV and the report caption say so.

Was: titled "seedNNN, CIFAR-10 test image i" and captioned "Werpachowski et al. (2019) Figure 2 on
the seeds models", as if it were the paper's figure.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

try:  # the subpackage layout
    from holdout.adversarial.cifar10 import plot_figure2
except ImportError:
    from holdout.adversarial.cifar10.plots import plot_figure2

REPO = Path(__file__).resolve().parents[2]
CLASSES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]


def test_figure2_title_and_csv_say_analogue_not_the_papers_imagenet_figure():
    img = np.zeros((20, 20, 3), np.uint8)
    example = {"model": "seed000", "index": 7, "label": 3, "v_row": 1, "v_col": -1}
    example |= {"pred_original": 3, "pred_translated": 5, "excess_logit": 1.5}
    fig, table = plot_figure2(img, img, example, CLASSES)
    title = fig._suptitle.get_text()
    assert title.startswith("Analogue of Werpachowski et al. Fig. 2 on CIFAR-10") and "ImageNet" in title
    assert table["figure"].iloc[0] == title.splitlines()[0]


def test_figure2_report_caption_says_analogue():
    caption = (REPO / "workflow/report/adversarial_cifar10/figure2.rst").read_text()
    assert caption.startswith("An analogue of Werpachowski et al. (2019) Figure 2 on CIFAR-10, not the paper's figure")
    assert "ImageNet" in caption and "VGG16" in caption
