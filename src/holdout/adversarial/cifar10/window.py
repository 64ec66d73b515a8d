"""The window and eps of the CIFAR-10 adversarial study (Werpachowski et al. 2019, Sec. 5.2,
Appendix B.1), without pandas or torch: ``workflow/rules/adversarial_cifar10_helpers.smk``
checks them at parse time. [`holdout.adversarial.cifar10`][holdout.adversarial.cifar10] re-exports both functions.
"""

from __future__ import annotations

from holdout.adversarial.translation import centre_origin, check_canvas, largest_eps

__all__ = ["CANVAS", "check_window", "resolve_window_eps"]

#: side of a CIFAR-10 image: the canvas the windows move on
CANVAS = 32
_KEY = "adversarial_cifar10"


def check_window(window: int, eps: float, canvas: int = CANVAS, *, key: str = _KEY) -> tuple[int, int]:
    """Top-left corner of the centre ``window`` x ``window`` crop of a ``canvas`` x ``canvas``
    image, after checking that every window within 3 floor(eps) of it lies in the canvas
    (Appendix B.1); raises [`CanvasError`][holdout.adversarial.translation.CanvasError] naming
    the largest eps allowed otherwise."""
    window, canvas = int(window), int(canvas)
    if not 1 <= window <= canvas:
        raise ValueError(f"{key}.window must be between 1 and {canvas} pixels, got {window}")
    origin = centre_origin((canvas, canvas), (window, window))
    check_canvas((canvas, canvas), (window, window), origin, eps, name=f"{key}: window {window}")
    return origin


def resolve_window_eps(window: int | None, eps: int | None, seeds_window: int | None = None) -> tuple[int, int]:
    """The window W and eps of the study: ``window`` None takes the seeds study's window,
    ``eps`` None the largest eps that W allows (floor((32 - W) / 2) // 3); both checked by
    [`check_window`][holdout.adversarial.cifar10.window.check_window]."""
    if window is None:
        if seeds_window is None:
            raise ValueError(f"{_KEY}.window is null and the seeds study names no window: set {_KEY}.window")
        window = seeds_window
    window = int(window)
    if eps is None:
        origin = check_window(window, 0, key=_KEY)  # margin only; eps 0 needs none
        eps = largest_eps(min(origin[0], CANVAS - window - origin[0]))
        if eps < 1:
            check_window(window, 1)  # raises, naming the problem
    check_window(window, eps)
    return window, int(eps)
