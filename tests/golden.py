"""Golden values: numbers that pin OUR OWN past outputs (regression pins), not the papers' numbers.

Each value says where it came from. A paper number that a test reproduces stays in that test,
citing the paper, table and value; the values here only guard against unintended changes. To
update one after a deliberate change, rerun the named computation and say why in the commit.
"""

# --- holdout.bounds at the ImageNet setting of Mania et al. Sec. 5.1 (n = 50,000, mean accuracy
# 75.6%, eta = 0.85, eps = 0.01, delta = 0.05); computed by tests/bounds/test_bounds.py's
# imagenet_ks fixture; pinned since commit 0739afb ("holdout.bounds: union, similarity (3)+(8) and
# naive-Bayes bounds exact") (the paper only says "a 4x improvement" and "10^8 models").
SB_K_IMAGENET_LITERAL = 1_074_051  # similarity_bound_k, form="literal"
SB_K_IMAGENET_PARTITION = 1_096_362  # similarity_bound_k, form="partition"
NBB_K_IMAGENET = 135_481_904  # naive_bayes_bound_k

# --- the other tail conventions of the union bound at that setting (floor(delta / tails), scipy
# binom.sf/cdf): the values that show why the paper's 257,397 needs X >= n(mu + eps), X < n(mu - eps);
# pinned since commit 0739afb
UNION_K_TAILS_GE_LE = 251_165  # right X >= 12,700, left X <= 11,700
UNION_K_TAILS_GT_LT = 265_636  # right X > 12,700, left X < 11,700

# --- Mania et al. Table 1 at its printed (rounded) inputs, n = 10,000, eps = 0.01, delta = 0.05:
# our exact gains (SB, NBB), printed as the paper prints them; the paper's 9.9x / 1.6e4x and
# 12.0x / 3.4e4x come from unrounded inputs (tests/bounds/test_bounds.py::test_mania_table1_nas_gains);
# pinned since commit 0739afb
TABLE1_GAINS_AT_PRINTED_INPUTS = {"20 Random": (9.6, 1.5e4), "20 Highest Scoring": (11.8, 3.2e4)}

# --- the 64 convolutional ImageNet testbed models on the validation set (mirror ../shared/data,
# ImageNetV2 testbed, fv_* models excluded): holdout.similarity.summarize_similarity and
# difficulty_distribution, as results/similarity/imagenet_val/summary.json and difficulty.csv
# hold them; pinned since commit 9ffb1f6 ("similarity: holdout.similarity ...") (the paper prints
# 0.85 and 0.62 on its 66 models)
IMAGENET_VAL_MEAN_SIMILARITY = 0.85548  # to 5e-5
IMAGENET_VAL_MEAN_INDEPENDENT_SIMILARITY = 0.63059  # to 5e-5
# percent right by all 64, with at most 6 wrong, wrong by all (paper, 66 models: 27.8, 55.9, 4.7)
IMAGENET_VAL_DIFFICULTY_PERCENT = [34.1, 57.7, 4.9]

# --- Arora & Zhang Table 1, ResNet-152 without AlexNet (729 bits, test error 4.49%, N = 50,000):
# the exact fixed point of T(p) computed by holdout.rvw.rvw_bound (the paper prints 8.49 %, a
# rounding slip; tests/rvw/test_rvw_bound.py); pinned since commit 722a3e2 ("rvw: rvw_bound ...")
RVW_RESNET152_729_BITS_BOUND = 0.084997  # to 5e-7
