"""The silent-failure checks on hand-made inputs; the smoke (test_smoke.py) drives them for real."""
import math

import pytest

from ptxbench_train import checks
from ptxbench_train.errors import CheckFailed


def counts(*trained, prompt=100):
    return [checks.TokenCount(i, f"ex{i}", prompt, 50, t) for i, t in enumerate(trained)]


def test_an_example_without_trained_tokens_fails_naming_it():
    assert checks.check_trained_tokens(counts(5, 7), 512) == 12
    with pytest.raises(CheckFailed, match=r"1 of 2 examples have no trained token.*\n  example 2 \(ex1\)"):
        checks.check_trained_tokens(counts(5, 0), 512)
    with pytest.raises(CheckFailed, match="prompt fills max_length"):
        checks.check_trained_tokens(counts(0, prompt=600), 512)


def test_trainer_rows_all_masked_or_dropped_fail():
    assert checks.check_trainer_rows(2, [[-100, 3, 4], [-100, 5]]) == 3
    with pytest.raises(CheckFailed, match="every label masked"):  # e.g. a template without generation markers
        checks.check_trainer_rows(2, [[-100, 3], [-100, -100]])
    with pytest.raises(CheckFailed, match="kept 1 of 2 examples"):
        checks.check_trainer_rows(2, [[-100, 3]])


def test_loss_must_fall_and_be_finite():
    checks.check_loss_drop(1.5, 0.9)
    for before, after in [(1.0, 1.0), (1.0, 1.2), (1.0, math.nan), (math.inf, 1.0)]:
        with pytest.raises(CheckFailed):
            checks.check_loss_drop(before, after)
    checks.check_loss_drop(1.0, 1.2, require_drop=False)


BASE = [-2.0, -1.0, -3.0, -0.5] * 10
TUNED = [b + 1.0 for b in BASE]


def test_served_logprobs_matching_peft_pass():
    served = [t + (0.05 if i % 2 else -0.05) for i, t in enumerate(TUNED)]
    r = checks.compare_served(served, TUNED, BASE, 0.15, 1.5, 0.5)
    assert r["served_vs_peft"]["mean_abs"] == pytest.approx(0.05)
    assert r["adapter_effect"]["mean_abs"] == pytest.approx(1.0)


def test_served_base_model_fails():  # the adapter was not applied: the server answers with the base
    with pytest.raises(CheckFailed, match="differ from PEFT's"):
        checks.compare_served(BASE, TUNED, BASE, 0.15, 1.5, 0.5)


def test_one_far_token_fails():
    served = list(TUNED)
    served[7] -= 3.0
    with pytest.raises(CheckFailed, match="max"):
        checks.compare_served(served, TUNED, BASE, 0.15, 1.5, 0.5)


def test_adapter_too_weak_to_tell_fails():
    tuned = [b + 0.1 for b in BASE]
    with pytest.raises(CheckFailed, match="cannot be\\s+told|cannot be told"):
        checks.compare_served(tuned, tuned, BASE, 0.15, 1.5, 0.5)


def test_served_halfway_between_fails():
    served = [b + 0.5 for b in BASE]
    with pytest.raises(CheckFailed):
        checks.compare_served(served, TUNED, BASE, 0.6, 1.5, 0.5)


def test_peft_module_check_on_a_tiny_model():
    """PEFT's own wrapping: LoRA that reached an embedding or the output layer is caught even when the
    names passed the config check (a regex, 'all-linear' on an untied head)."""
    import torch
    from peft import LoraConfig, get_peft_model
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=False)
    ok = get_peft_model(LlamaForCausalLM(cfg), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
    assert len(checks.check_peft_modules(ok)) == 4
    for targets in (r".*(q_proj|embed_tokens)", r".*(v_proj|lm_head)"):
        bad = get_peft_model(LlamaForCausalLM(cfg), LoraConfig(r=4, target_modules=targets))
        with pytest.raises(CheckFailed, match="output layer or an embedding"):
            checks.check_peft_modules(bad)


class TemplateTokenizer:
    """A stand-in tokenizer: one id per character of the rendered chat, with a template to choose."""

    def __init__(self, drop_last_assistant=False):
        self.drop = drop_last_assistant

    def apply_chat_template(self, messages, tokenize=True, add_generation_prompt=False):
        msgs = messages[:-1] if self.drop and messages[-1]["role"] == "assistant" else messages
        text = "".join(f"<{m['role']}>{m['content']}</{m['role']}>" for m in msgs)
        text += "<assistant>" if add_generation_prompt else ""
        return [ord(c) for c in text] if tokenize else text


EXAMPLE = {"prompt": [{"role": "user", "content": "write a kernel"}],
           "completion": [{"role": "assistant", "content": "```cuda\n__global__ void k() {}\n```"}]}


def test_token_count_follows_the_template_and_truncation():
    (c,) = checks.count_tokens([EXAMPLE], TemplateTokenizer(), 1000, lambda e: "ex")
    assert c.prompt_tokens == len("<user>write a kernel</user><assistant>")
    assert c.completion_tokens == c.trained_tokens == len("```cuda\n__global__ void k() {}\n```</assistant>")
    (c,) = checks.count_tokens([EXAMPLE], TemplateTokenizer(), c.prompt_tokens, lambda e: "ex")
    assert c.trained_tokens == 0
    with pytest.raises(CheckFailed, match="no trained token"):
        checks.check_trained_tokens([c], c.prompt_tokens)


def test_a_template_that_drops_the_completion_fails():
    with pytest.raises(CheckFailed, match="does not render the completion"):
        checks.count_tokens([EXAMPLE], TemplateTokenizer(drop_last_assistant=True), 1000, lambda e: "ex")
