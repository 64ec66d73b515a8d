"""Description lengths by the rubric of Arora & Zhang (2021), Sec. 4 and Appendix B."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from holdout.rvw.core import (
    DEEP_LEARNING_LAYERS,
    MATH_OPERATIONS,
    OPTIMIZERS,
    RANDOM_SAMPLING_FUNCTIONS,
    STE_DICTIONARY_WORDS,
    TENSOR_OPERATIONS,
    DescriptionError,
    EnglishRubric,
    description_length,
    english_bits,
    index_bits,
)


@pytest.fixture(scope="module")
def resources(repo: Path) -> Path:
    return repo / "config" / "rvw"


def _write(tmp_path: Path, doc: object, name: str = "d.yaml") -> Path:
    p = tmp_path / name
    p.write_text(yaml.safe_dump(doc, sort_keys=False))
    return p


def _items(d, part_prefix: str) -> dict[str, float]:
    return {it.what: it.bits for it in d.items if it.part.startswith(part_prefix)}


# --- vocabulary sizes and code widths printed in the paper --------------------------------


def test_appendix_b_vocabulary_sizes():
    """Appendix B: 25 Math Operations, 10 Neural Net Layers; 9 sampling functions, 5 tensor ops, 5 optimizers."""
    assert len(MATH_OPERATIONS) == len(set(MATH_OPERATIONS)) == 25
    assert len(DEEP_LEARNING_LAYERS) == 10
    assert (len(RANDOM_SAMPLING_FUNCTIONS), len(TENSOR_OPERATIONS), len(OPTIMIZERS)) == (9, 5, 5)


def test_code_widths_printed_in_sec_4():
    """Sec. 4: ceil(log2 12) = 4 (BN vertex index), ceil(log2 25) = 5 (operator), ceil(log2 10) = 4 (layer),
    ceil(log2 875) = 10 (STE word)."""
    assert index_bits(12) == 4 and index_bits(13) == 4
    assert index_bits(25) == 5
    assert index_bits(10) == 4
    assert index_bits(STE_DICTIONARY_WORDS) == 10
    assert EnglishRubric().bits_per_word == 10 and EnglishRubric().bits_per_character == 1.0
    assert index_bits(1) == 0 and index_bits(2) == 1 and index_bits(16) == 4 and index_bits(17) == 5
    with pytest.raises(ValueError):
        index_bits(0)


# --- batch normalization, Sec. 4.2 ----------------------------------------------------------


def test_batch_norm_sec_4_2_edges_60_bits_and_about_100_bits(resources: Path):
    """Sec. 4.2: BN's graph has 12 edges at 4-bit index + 1 order bit = 60 bits; in all "~100 bits".

    Our shipped description counts one legend entry per operator vertex (the equation has six
    operators: subtract, add, sqrt, divide, multiply, add): 8 + 6 x 5 = 38, total 98 bits.
    """
    d = description_length(resources / "batch_norm.yaml")
    items = _items(d, "math: BN")
    assert items["edges: 12 x 4-bit vertex index (13 vertices)"] + items["order bits (every_edge)"] == 60
    assert items["legend: constants as 8-bit floats"] == 8
    assert items["legend: operators of 25 Math Operations (per_vertex)"] == 30
    assert d.total == 98 and d.bits == 98
    assert abs(d.total - 100) <= 5  # the paper's "~100 bits"


def test_batch_norm_sec_4_2_paper_legend_33_bits_total_93(resources: Path, tmp_path: Path):
    """Sec. 4.2 counts the legend as 8 + 5 x 5 = 33 bits (each operator type once): 60 + 33 = 93 ~ 100 bits."""
    doc = yaml.safe_load((resources / "batch_norm.yaml").read_text())
    doc["parts"][0]["math"]["operator_legend"] = "per_type"
    d = description_length(_write(tmp_path, doc))
    items = _items(d, "math: BN")
    legend = items["legend: constants as 8-bit floats"] + items["legend: operators of 25 Math Operations (per_type)"]
    assert legend == 33
    assert d.total == 60 + 33 == 93


def test_order_bits_only_for_order_sensitive_operators(resources: Path, tmp_path: Path):
    """The text's reading of Sec. 4.2: an order bit only on the edges into subtract and divide (4 edges)."""
    doc = yaml.safe_load((resources / "batch_norm.yaml").read_text())
    doc["parts"][0]["math"]["order_bits"] = "order_sensitive"
    d = description_length(_write(tmp_path, doc))
    assert _items(d, "math: BN")["order bits (order_sensitive)"] == 4
    assert d.total == 48 + 4 + 8 + 30


# --- ResNet-152 forward pass, Sec. 4.3 ----------------------------------------------------


def test_resnet152_forward_pass_sec_4_3_is_86_bits(resources: Path):
    """Sec. 4.3: 5 primitive layers x 4 bits + 39 (blocks, hyperparameters) + 9 edges x 3 bits = 86 bits."""
    d = description_length(resources / "resnet152_forward_pass.yaml")
    by_what = {it.what: it for it in d.items}
    layers = by_what["primitive layer types (10 Neural Net Layers)"]
    edges = by_what["chain edges (input -> first node, node -> next)"]
    assert (layers.count, layers.bits_each, layers.bits) == (5, 4, 20)
    assert (edges.count, edges.bits_each, edges.bits) == (9, 3, 27)
    assert by_what["blocks (4) and hyperparameters (total as given)"].bits == 39
    assert d.total == 86 and d.bits == 86


def test_network_per_hyperparameter_mode_and_default_edge_width(tmp_path: Path):
    doc = {
        "name": "tiny",
        "parts": [
            {
                "network": {
                    "chain": [
                        {"layer": "Conv", "args": [3, 16, 1]},
                        {"block": "Res", "args": [16], "repeat": 2},
                        {"layer": "FC", "args": [10]},
                    ],
                    "hyperparameter_bits": 2,
                }
            }
        ],
    }
    d = description_length(_write(tmp_path, doc))
    by_what = {it.what: it.bits for it in d.items}
    assert by_what["primitive layer types (10 Neural Net Layers)"] == 2 * 4
    assert by_what["block types (layer vocabulary + defined blocks)"] == 4  # ceil(log2 11)
    assert by_what["hyperparameter values (args, repeat counts)"] == (3 + 1 + 1 + 1) * 2
    assert by_what["chain edges (input -> first node, node -> next)"] == 3 * 2  # ceil(log2 4)
    assert d.total == 8 + 4 + 12 + 6


# --- English, Sec. 4.1 --------------------------------------------------------------------


def test_english_option_1_counts_characters_option_2_counts_words():
    text = "random crop  224 x 224\n with horizontal flip"
    one = english_bits(text, EnglishRubric("character", bits_per_character=1.0))
    assert one.count == len("random crop 224 x 224 with horizontal flip") == 42 and one.bits == 42
    two = english_bits(text, EnglishRubric("word"))
    assert two.count == 8 and two.bits == 80
    assert english_bits(text, EnglishRubric("character", bits_per_character=1.2)).bits == pytest.approx(50.4)


def test_english_rubric_from_file_and_override(resources: Path):
    path = resources / "resnet152_english_appendix_c1.yaml"
    own = description_length(path)  # the file asks for Option 1
    words = description_length(path, EnglishRubric("word"))
    assert all("Option 1" in it.what for it in own.items)
    assert all("Option 2" in it.what and it.bits == 10 * it.count for it in words.items)
    assert own.total == sum(it.count for it in own.items)
    assert len(own.by_part()) == 4 and "total" in own.table()


def test_fractional_bits_round_up(tmp_path: Path):
    p = _write(
        tmp_path,
        {
            "name": "x",
            "english": {"option": "character", "bits_per_character": 1.2},
            "parts": [{"english": "abc"}, {"counted": {"bits": 1, "what": "flag"}}],
        },
    )
    d = description_length(p)
    assert d.total == pytest.approx(4.6) and d.bits == 5


# --- errors name the file and the key ------------------------------------------------------

BN_MATH = {"symbols": ["x", "m"], "operators": {"d": ["subtract", "x", "m"]}, "outputs": {"y": "d"}}


@pytest.mark.parametrize(
    "doc,key,problem",
    [
        ({"parts": [{"english": "a"}]}, "name", "missing required key"),
        ({"name": "x"}, "parts", "missing required key"),
        ({"name": "x", "parts": []}, "parts", "non-empty list"),
        ({"name": "x", "parts": [{"poem": "a"}]}, "parts[0]", "exactly one key"),
        ({"name": "x", "colour": 1, "parts": [{"english": "a"}]}, "colour", "unknown key"),
        (
            {"name": "x", "parts": [{"math": {**BN_MATH, "operators": {"d": ["tanh", "x"]}}}]},
            "parts[0].math.operators.d",
            "unknown operator 'tanh'",
        ),
        (
            {"name": "x", "parts": [{"math": {k: v for k, v in BN_MATH.items() if k != "outputs"}}]},
            "parts[0].math.outputs",
            "missing required key",
        ),
        (
            {"name": "x", "parts": [{"math": {**BN_MATH, "operators": {"d": ["subtract", "x", "z"]}}}]},
            "parts[0].math.operators.d[2]",
            "argument 'z' is not a symbol",
        ),
        (
            {"name": "x", "parts": [{"math": {**BN_MATH, "operators": {"d": ["add", "e"], "e": ["add", "d"]}}}]},
            "parts[0].math.operators.",
            "cycle",
        ),
        (
            {"name": "x", "parts": [{"math": {**BN_MATH, "constants": {"x": 1.0}}}]},
            "parts[0].math.constants.x",
            "already used",
        ),
        (
            {"name": "x", "parts": [{"math": {**BN_MATH, "order_bits": "some"}}]},
            "parts[0].math.order_bits",
            "every_edge",
        ),
        (
            {"name": "x", "parts": [{"network": {"chain": [{"layer": "BatchNorm"}], "hyperparameter_bits": 1}}]},
            "parts[0].network.chain[0].layer",
            "unknown layer 'BatchNorm'",
        ),
        (
            {"name": "x", "parts": [{"network": {"chain": [{"layer": "ReLU"}]}}]},
            "parts[0].network",
            "exactly one of 'blocks_and_hyperparameters_bits'",
        ),
        (
            {"name": "x", "parts": [{"network": {"hyperparameter_bits": 1}}]},
            "parts[0].network.chain",
            "missing required key",
        ),
        ({"name": "x", "parts": [{"counted": {"bits": 3}}]}, "parts[0].counted.what", "missing required key"),
        ({"name": "x", "parts": [{"counted": {"bits": -3, "what": "w"}}]}, "parts[0].counted.bits", ">= 0"),
        ({"name": "x", "english": {"option": "morse"}, "parts": [{"english": "a"}]}, "english.option", "'character'"),
    ],
)
def test_bad_description_names_file_and_key(tmp_path: Path, doc, key, problem):
    p = _write(tmp_path, doc, "bad_description.yaml")
    with pytest.raises(DescriptionError) as err:
        description_length(p)
    msg = str(err.value)
    assert msg.startswith(f"{p}: {key}"), msg
    if not key.endswith("."):  # the key is the whole key, not the start of a longer one
        assert msg.startswith(f"{p}: {key}: "), msg
    assert problem in msg, msg


def test_missing_file_and_invalid_yaml(tmp_path: Path):
    with pytest.raises(DescriptionError, match="description file not found"):
        description_length(tmp_path / "nope.yaml")
    p = tmp_path / "broken.yaml"
    p.write_text("name: [unclosed\n")
    with pytest.raises(DescriptionError, match=r"broken\.yaml: not valid YAML"):
        description_length(p)


def test_schema_and_cycle_messages(tmp_path: Path):
    """The structure is the JSON schema's (DESCRIPTION_SCHEMA); the cycle check names the cycle;
    YAML's .inf is refused by key."""
    import jsonschema

    from holdout.rvw.core import DESCRIPTION_SCHEMA

    jsonschema.Draft202012Validator.check_schema(DESCRIPTION_SCHEMA)
    ops = {"a": ["add", "x", "c"], "b": ["add", "a"], "c": ["add", "b"]}
    p = _write(
        tmp_path, {"name": "x", "parts": [{"math": {"symbols": ["x"], "operators": ops, "outputs": {"y": "c"}}}]}
    )
    with pytest.raises(DescriptionError, match=r"the computation graph has a cycle: (\w -> ){3}\w$"):
        description_length(p)
    p = _write(tmp_path, {"name": "x", "parts": [{"counted": {"bits": float("inf"), "what": "w"}}]}, "inf.yaml")
    with pytest.raises(DescriptionError, match=r"inf\.yaml: parts\[0\]\.counted\.bits: expected a finite number"):
        description_length(p)


def test_schema_file_lists_the_vocabulary():
    """description.schema.json (package data) names exactly the operators and layers of
    holdout.rvw.vocabulary (Arora & Zhang Appendix B), in its enums and in its messages."""
    from importlib import resources

    from holdout.rvw import vocabulary as V
    from holdout.rvw.description import DESCRIPTION_SCHEMA

    text = resources.files("holdout.rvw").joinpath("description.schema.json").read_text(encoding="utf-8")
    assert json.loads(text) == DESCRIPTION_SCHEMA
    part = DESCRIPTION_SCHEMA["properties"]["parts"]["items"]["properties"]
    op = part["math"]["properties"]["operators"]["additionalProperties"]["prefixItems"][0]
    assert op["enum"] == list(V.MATH_OPERATIONS)
    assert op["x-problem"].endswith(", ".join(V.MATH_OPERATIONS))
    layer = part["network"]["properties"]["chain"]["items"]["properties"]["layer"]
    assert layer["enum"] == [*V.DEEP_LEARNING_LAYERS, *V.LAYER_ALIASES]
    assert layer["x-problem"].endswith(", ".join(V.DEEP_LEARNING_LAYERS))
