#!/usr/bin/env python3
"""Measures training throughput and peak memory of each job family on this machine's GPU, and
decode throughput of two Llama-shaped models, as JSON lines (bench/gpu/run_device.sh). The
numbers calibrate frugal's cross-GPU model and memory estimator (bench/RESULTS.md)."""
import json
import sys
import time

import torch

import models

TRAIN = [  # family, size, batch, dtype
    ("transformer", "125m", 8, "bf16"), ("transformer", "125m", 16, "bf16"), ("transformer", "125m", 8, "fp16"),
    ("transformer", "125m", 8, "tf32"), ("transformer", "125m", 8, "fp32"), ("transformer", "350m", 8, "bf16"),
    ("transformer", "760m", 8, "bf16"),
    ("cnn", "resnet50", 128, "bf16"), ("cnn", "resnet50", 256, "bf16"), ("cnn", "resnet50", 128, "fp16"),
    ("cnn", "resnet50", 128, "tf32"), ("cnn", "resnet50", 128, "fp32"), ("cnn", "resnet18", 256, "bf16"),
    ("bert", "base", 32, "bf16"), ("bert", "base", 64, "bf16"), ("bert", "base", 32, "fp32"), ("bert", "large", 32, "bf16"),
    ("rnn", "lstm1024", 64, "bf16"), ("rnn", "lstm1024", 64, "fp32"), ("rnn", "lstm512", 64, "fp32"),
    ("recommender", "dlrm-small", 2048, "fp32"), ("recommender", "dlrm-small", 2048, "bf16"),
    ("recommender", "dlrm-large", 8192, "fp32"),
    ("mlp", "tiny", 64, "fp32"), ("mlp", "tiny", 1024, "fp32"), ("mlp", "small", 1024, "fp32"),
]
DECODE = [("llama-1b", dict(hidden_size=2048, num_hidden_layers=16, num_attention_heads=32, num_key_value_heads=8,
                            intermediate_size=8192, vocab_size=32000), [1, 16, 64]),
          ("llama-8b", dict(hidden_size=4096, num_hidden_layers=32, num_attention_heads=32, num_key_value_heads=8,
                            intermediate_size=14336, vocab_size=128256), [1, 16, 64])]


def emit(row):
    print(json.dumps(row), flush=True)


def train_one(family, size, batch, dtype):
    torch.backends.cuda.matmul.allow_tf32 = dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = dtype == "tf32"
    torch.cuda.reset_peak_memory_stats()
    model, make_batch, loss_fn, tps = models.build(family, size, batch, "cuda")
    model = model.cuda()
    params = sum(p.numel() for p in model.parameters())
    opt = (torch.optim.SGD(model.parameters(), lr=0.01) if family == "recommender"
           else torch.optim.AdamW(model.parameters(), lr=1e-4))
    amp = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(dtype)

    def step():
        with torch.autocast("cuda", dtype=amp, enabled=amp is not None):
            loss = loss_fn(model(*make_batch()))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    per = (time.perf_counter() - t) / 3
    n = max(5, min(200, int(2.0 / max(per, 1e-4))))
    t = time.perf_counter()
    for _ in range(n):
        step()
    torch.cuda.synchronize()
    sec = (time.perf_counter() - t) / n
    row = dict(kind="train", family=family, size=size, batch=batch, dtype=dtype, params=params, steps=n,
               step_seconds=sec, samples_per_second=batch / sec,
               tokens_per_second=batch * tps / sec if tps else None,
               peak_allocated_bytes=torch.cuda.max_memory_allocated(),
               peak_reserved_bytes=torch.cuda.max_memory_reserved())
    del model, opt
    torch.cuda.empty_cache()
    return row


def decode_one(name, cfg, batches):
    from transformers import LlamaConfig, LlamaForCausalLM
    with torch.device("cuda"):
        model = LlamaForCausalLM(LlamaConfig(**cfg, torch_dtype=torch.bfloat16)).to(torch.bfloat16).eval()
    params = sum(p.numel() for p in model.parameters())
    rows = []
    for b in batches:
        ids = torch.randint(0, cfg["vocab_size"], (b, 512), device="cuda")
        kw = dict(max_new_tokens=128, min_new_tokens=128, do_sample=False, pad_token_id=0)
        with torch.no_grad():
            model.generate(ids, **dict(kw, max_new_tokens=8, min_new_tokens=8))
            torch.cuda.synchronize()
            t = time.perf_counter()
            model.generate(ids, **kw)
            torch.cuda.synchronize()
            sec = time.perf_counter() - t
        rows.append(dict(kind="decode", model=name, params=params, batch=b, prompt=512, new_tokens=128,
                         seconds=sec, output_tokens_per_second=b * 128 / sec))
    del model
    torch.cuda.empty_cache()
    return rows


def main():
    emit(dict(kind="device", name=torch.cuda.get_device_name(0), torch=torch.__version__,
              sms=torch.cuda.get_device_properties(0).multi_processor_count,
              memory_bytes=torch.cuda.get_device_properties(0).total_memory))
    only = set(sys.argv[1:])
    for cfg in TRAIN:
        if only and cfg[0] not in only:
            continue
        try:
            emit(train_one(*cfg))
        except Exception as e:  # one failing config must not lose the others
            emit(dict(kind="error", config=list(cfg), error=repr(e)[:300]))
            torch.cuda.empty_cache()
    if not only or "decode" in only:
        for name, cfg, batches in DECODE:
            try:
                for row in decode_one(name, cfg, batches):
                    emit(row)
            except Exception as e:
                emit(dict(kind="error", config=name, error=repr(e)[:300]))


if __name__ == "__main__":
    main()
