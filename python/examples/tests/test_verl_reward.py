"""verl's reward computation with PTXBench's reward API, on the CPU against service_http_harness (the
API and engine of `serve --http`, the GPU stage simulated): a DataProto batch of prompts and responses
(tokens, as verl's rollout leaves them) scored by
  - verl's RewardLoopManager, as verl's PPO trainer calls it (`compute_rm_score`), with the reward loop's
    naive manager and our async hook (python/examples/verl_reward.py: compute_score_async) loaded from
    the config's custom_reward_function, in a Ray actor (a local Ray instance, 1 worker);
  - verl's legacy NaiveRewardManager (compute_score, per sample) and BatchRewardManager
    (compute_score_batch, one submission).
Each checks that the score at a response's last token is what reward.py computes from the record the
service stored for that candidate, and that identical responses are judged once."""
import json
from functools import partial
from pathlib import Path

import pytest

from live_server import simulated_serve
from ptxbench_client import PtxbenchClient, tiered_reward

RESPONSES = 6


def simulated_outcome(text):
    import verl_reward

    return verl_reward.candidate(text, "gemm", simulated=True).source.rsplit("// simulated: ", 1)[1].strip()


def responses_covering_every_outcome():
    """Responses whose simulated outcomes (picked by hash) are all six, plus one repeated."""
    seen, out = set(), []
    i = 0
    while len(seen) < RESPONSES:
        text = f"Here is my kernel, attempt {i}.\n```cuda\n__global__ void k{i}() {{}}\n```\n"
        outcome = simulated_outcome(text)
        if outcome not in seen:
            seen.add(outcome)
            out.append(text)
        i += 1
    return out + [out[0]]


@pytest.fixture(scope="module")
def tokenizer_dir(tmp_path_factory):
    import trl_grpo

    d = tmp_path_factory.mktemp("tokenizer")
    trl_grpo.load_tokenizer("gguf:@smollm2").save_pretrained(d)
    return d


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    ws = tmp_path_factory.mktemp("server")
    s = simulated_serve(ws, inline_gpu=True).start()
    yield s
    assert s.stop() == 0, s.log()


def batch(tokenizer, texts, problem="gemm"):
    """A DataProto as verl's rollout leaves it: left-padded prompts, right-padded responses."""
    import numpy as np
    import torch
    from verl import DataProto

    prompt = (Path(__file__).resolve().parents[3] / "problems" / problem / "prompt.md").read_text()[:400]
    p_ids = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    r_ids = [tokenizer(t, add_special_tokens=False)["input_ids"] for t in texts]
    P, R, pad = len(p_ids), max(len(r) for r in r_ids), tokenizer.pad_token_id
    prompts = torch.tensor([p_ids] * len(texts))
    responses = torch.tensor([r + [pad] * (R - len(r)) for r in r_ids])
    mask = torch.tensor([[1] * P + [1] * len(r) + [0] * (R - len(r)) for r in r_ids])
    data = DataProto.from_dict(
        tensors={"prompts": prompts, "responses": responses, "input_ids": torch.cat([prompts, responses], 1),
                 "attention_mask": mask, "position_ids": torch.clamp(mask.cumsum(1) - 1, min=0)},
        non_tensors={"data_source": np.array(["ptxbench/" + problem] * len(texts), dtype=object),
                     "reward_model": np.array([{"ground_truth": problem}] * len(texts), dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(len(texts))], dtype=object)})
    return data, [len(r) for r in r_ids]


def check_scores(url, scores, keys, lengths, texts):
    """scores: [B, R] with each sample's reward at its last response token; keys: each sample's key."""
    client = PtxbenchClient(url)
    assert len(set(keys)) == RESPONSES, "the repeated response has its twin's key"
    verdicts = set()
    for i, (key, n) in enumerate(zip(keys, lengths)):
        result = client.result(key)
        assert result is not None and result.state == "done", key
        assert float(scores[i, n - 1]) == pytest.approx(tiered_reward(result.reward)), (i, key, texts[i])
        assert float(scores[i].sum()) == pytest.approx(float(scores[i, n - 1])), "one score per response"
        verdicts.add(result.reward["verdict"])
    assert {"compile_error", "incorrect", "correct"} <= verdicts
    return client


def test_reward_loop_manager_scores_a_batch_through_the_service(server, tokenizer_dir):
    pytest.importorskip("verl")
    import ray
    import verl
    from omegaconf import OmegaConf
    from transformers import AutoTokenizer
    from verl.experimental.reward_loop import RewardLoopManager

    texts = responses_covering_every_outcome()
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    data, lengths = batch(tokenizer, texts)
    # verl's own default trainer config, with the reward hook named as a user would name it.
    config = OmegaConf.load(Path(verl.__file__).parent / "trainer/config/_generated_ppo_trainer.yaml")
    config.actor_rollout_ref.model.path = str(tokenizer_dir)
    config.reward.num_workers = 1
    config.reward.custom_reward_function.path = str(Path(__file__).resolve().parents[1] / "verl_reward.py")
    config.reward.custom_reward_function.name = "compute_score_async"
    config.reward.custom_reward_function.reward_kwargs = {"url": server.url, "simulated": True,
                                                          "key_prefix": "verl-loop"}
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    try:
        out = RewardLoopManager(config).compute_rm_score(data)
    finally:
        ray.shutdown()
    keys = list(out.non_tensor_batch["ptxbench_key"])
    check_scores(server.url, out.batch["rm_scores"], keys, lengths, texts)
    assert list(out.non_tensor_batch["counts"]) == [True] * len(texts)


def test_legacy_naive_and_batch_reward_managers(server, tokenizer_dir):
    pytest.importorskip("verl")
    from transformers import AutoTokenizer
    from verl.workers.reward_manager import BatchRewardManager, NaiveRewardManager

    import verl_reward

    texts = responses_covering_every_outcome()
    tokenizer = AutoTokenizer.from_pretrained(tokenizer_dir)
    data, lengths = batch(tokenizer, texts)
    naive = NaiveRewardManager(tokenizer, num_examine=0, compute_score=partial(
        verl_reward.compute_score, url=server.url, simulated=True, key_prefix="verl-naive"))
    out = naive(data, return_dict=True)
    check_scores(server.url, out["reward_tensor"], out["reward_extra_info"]["ptxbench_key"], lengths, texts)

    before = PtxbenchClient(server.url).health()["queue"]["done"]
    batched = BatchRewardManager(tokenizer, num_examine=0, compute_score=verl_reward.compute_score_batch,
                                 url=server.url, simulated=True, key_prefix="verl-batch")
    out = batched(data, return_dict=True)
    client = check_scores(server.url, out["reward_tensor"], out["reward_extra_info"]["ptxbench_key"], lengths, texts)
    assert client.health()["queue"]["done"] - before == RESPONSES, "one job per distinct response"
    assert json.dumps(out["reward_extra_info"]["verdict"])
