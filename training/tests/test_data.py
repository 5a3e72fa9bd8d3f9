"""The input contract with `ptxbench fixit export --format trl` (no model needed)."""
import json

import pytest

from conftest import FIXTURE
from ptxbench_train import data
from ptxbench_train.errors import InputError


def test_fixture_is_the_export_shape():
    examples = data.load_examples(FIXTURE)
    assert 8 <= len(examples) <= 20
    kinds = [data.describe(e).split(":")[0] for e in examples]
    assert kinds.count("kernelgen") >= 2 and kinds.count("fixit") >= 6
    assert any(e["prompt"][0]["role"] != "system" for e in examples)  # fixit export --system none
    for e in examples:
        assert set(e) == {"prompt", "completion"}
        assert e["completion"][0]["role"] == "assistant" and "```cuda\n" in e["completion"][0]["content"]
        if data.describe(e).startswith("fixit"):
            roles = [m["role"] for m in e["prompt"] if m["role"] != "system"]
            assert roles == ["user", "assistant", "user"]
            assert "```cuda" in e["prompt"][-2]["content"]  # the failed reply carries its kernel


def _write(tmp_path, records):
    p = tmp_path / "d.jsonl"
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n")
    return p


GOOD = {"prompt": [{"role": "user", "content": "p"}], "completion": [{"role": "assistant", "content": "fix"}]}


@pytest.mark.parametrize("record, message", [
    ("{not json", "not JSON"),
    ({"prompt": GOOD["prompt"]}, "exactly the keys prompt and completion"),
    ({**GOOD, "problem": "gemm"}, "sidecar"),
    ({**GOOD, "completion": [{"role": "user", "content": "x"}]}, "the assistant's message"),
    ({**GOOD, "completion": [{"role": "assistant", "content": "  "}]}, "completion is empty"),
    ({**GOOD, "completion": GOOD["completion"] * 2}, "exactly one assistant message"),
    ({**GOOD, "prompt": GOOD["prompt"] + [{"role": "assistant", "content": "a"}]}, "end on a user"),
    ({**GOOD, "prompt": [{"role": "user", "content": "p"}, {"role": "system", "content": "s"}]}, "only come first"),
    ({**GOOD, "prompt": [{"role": "system", "content": "s"}]}, "only a system message"),
    ({**GOOD, "prompt": [{"role": "user", "content": "p"}, {"role": "user", "content": "q"}]}, "alternate"),
    ({**GOOD, "prompt": [{"role": "tool", "content": "p"}]}, "role must be one of"),
    ({**GOOD, "prompt": [{"role": "user", "content": 3}]}, "content must be a string"),
])
def test_contract_violations_name_the_line(tmp_path, record, message):
    p = _write(tmp_path, [GOOD, record])
    with pytest.raises(InputError) as e:
        data.load_examples(p)
    assert message in str(e.value)
    assert f"{p}:2" in str(e.value)


def test_empty_file_is_an_error(tmp_path):
    with pytest.raises(InputError, match="no examples"):
        data.load_examples(_write(tmp_path, [""]))
