"""Configs: the shipped ones load; unknown keys and LoRA on lm_head/embeddings are refused."""
import pytest

from conftest import TINY, TRAINING
from ptxbench_train import checks, config
from ptxbench_train.errors import CheckFailed, InputError


def test_shipped_configs_load():
    tiny = config.load(TINY)
    assert tiny.model.gguf == "@smollm2" and not tiny.train.bf16
    paper = config.load(TRAINING / "configs" / "qwen3.6-27b.toml")
    assert paper.model.hf.startswith("Qwen/Qwen3.6-27B")
    assert paper.train.bf16 and paper.train.gradient_checkpointing
    for cfg in (tiny, paper):
        checks.check_lora_targets(cfg.lora.targets, cfg.lora.modules_to_save)


def test_unknown_keys_and_bad_types_are_errors(tmp_path):
    p = tmp_path / "c.toml"
    for text, message in [('[model]\ngguf = "x"\n[train]\nlearning_rat = 1e-4\n', "unknown key 'learning_rat'"),
                          ('[model]\ngguf = "x"\n[trian]\n', "unknown section"),
                          ('[model]\ngguf = "x"\n[train]\nbf16 = 1\n', "expected true or false"),
                          ('[model]\ngguf = "x"\nhf = "y"\n', "exactly one of gguf and hf"),
                          ('[model]\ngguf = "x"\n[lora]\ntargets = "q_proj"\n', "list of strings")]:
        p.write_text(text)
        with pytest.raises(InputError, match=message):
            config.load(p)


@pytest.mark.parametrize("targets, saved", [(["q_proj", "lm_head"], []), (["embed_tokens", "v_proj"], []),
                                            (["q_proj"], ["lm_head"]), (["q_proj"], ["embed_tokens"])])
def test_lora_on_lm_head_or_embeddings_is_refused(targets, saved):
    with pytest.raises(CheckFailed, match="GGUF"):
        checks.check_lora_targets(targets, saved)
