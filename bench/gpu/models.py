"""Model builders for the GPU measurement programs (bench/gpu): one per job family frugal's
estimator knows (transformer, CNN, RNN, recommender, small MLP). Random weights: throughput and
memory do not depend on what the weights are."""
import torch
import torch.nn as nn


class Block(nn.Module):
    """A pre-norm decoder block: causal self-attention through scaled_dot_product_attention
    (flash kernels where the GPU has them), GELU MLP of 4·hidden."""

    def __init__(self, hidden, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(hidden), nn.LayerNorm(hidden)
        self.qkv, self.proj = nn.Linear(hidden, 3 * hidden), nn.Linear(hidden, hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        y = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, c))
        return x + self.mlp(self.norm2(x))


class Gpt(nn.Module):
    """A GPT-style decoder (pre-norm blocks, learned positions, tied head)."""

    def __init__(self, layers, hidden, heads, vocab, seq):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.pos = nn.Embedding(seq, hidden)
        self.blocks = nn.Sequential(*(Block(hidden, heads) for _ in range(layers)))
        self.norm = nn.LayerNorm(hidden)

    def forward(self, tokens):
        positions = torch.arange(tokens.shape[1], device=tokens.device)
        x = self.blocks(self.embed(tokens) + self.pos(positions))
        return self.norm(x) @ self.embed.weight.t()


class Dlrm(nn.Module):
    """A DLRM-style recommender: bottom MLP on dense features, embedding bags, pairwise dot
    interactions, top MLP."""

    def __init__(self, tables, rows, dim, dense):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(dense, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                                    nn.Linear(256, dim), nn.ReLU())
        self.bags = nn.ModuleList(nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        n = tables + 1
        self.top = nn.Sequential(nn.Linear(dim + n * (n - 1) // 2, 1024), nn.ReLU(), nn.Linear(1024, 1024),
                                 nn.ReLU(), nn.Linear(1024, 512), nn.ReLU(), nn.Linear(512, 1))

    def forward(self, dense, sparse):
        x = self.bottom(dense)
        feats = torch.stack([x] + [bag(sparse[:, i, :]) for i, bag in enumerate(self.bags)], dim=1)
        inter = feats @ feats.transpose(1, 2)
        i, j = torch.triu_indices(feats.shape[1], feats.shape[1], offset=1)
        return self.top(torch.cat([x, inter[:, i, j]], dim=1))


class Lstm(nn.Module):
    def __init__(self, vocab, hidden, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.rnn = nn.LSTM(hidden, hidden, layers, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        return self.head(self.rnn(self.embed(tokens))[0])


def build(family, size, batch, device):
    """Returns (model, make_batch, loss_fn, tokens_per_sample)."""
    g = torch.Generator(device="cpu").manual_seed(0)
    if family == "transformer":
        layers, hidden, heads, seq = {"125m": (12, 768, 12, 1024), "350m": (24, 1024, 16, 1024),
                                      "760m": (24, 1536, 16, 1024)}[size]
        vocab = 50304
        model = Gpt(layers, hidden, heads, vocab, seq)
        data = torch.randint(0, vocab, (batch, seq + 1), generator=g).to(device)
        return model, (lambda: (data[:, :-1],)), (lambda out: nn.functional.cross_entropy(
            out.reshape(-1, vocab).float(), data[:, 1:].reshape(-1))), seq
    if family == "cnn":
        import torchvision
        model = getattr(torchvision.models, size)(weights=None)
        x = torch.randn(batch, 3, 224, 224, generator=g).to(device).contiguous(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (batch,), generator=g).to(device)
        model = model.to(memory_format=torch.channels_last)
        return model, (lambda: (x,)), (lambda out: nn.functional.cross_entropy(out.float(), y)), None
    if family == "bert":
        from transformers import BertConfig, BertForMaskedLM
        cfg = {"base": BertConfig(), "large": BertConfig(hidden_size=1024, num_hidden_layers=24,
                                                          num_attention_heads=16, intermediate_size=4096)}[size]
        model = BertForMaskedLM(cfg)
        seq = 128
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), generator=g).to(device)
        return model, (lambda: (ids,)), (lambda out: nn.functional.cross_entropy(
            out.logits.reshape(-1, cfg.vocab_size).float(), ids.reshape(-1))), seq
    if family == "rnn":
        hidden, layers = {"lstm1024": (1024, 2), "lstm512": (512, 2)}[size]
        vocab, seq = 10000, 128
        model = Lstm(vocab, hidden, layers)
        data = torch.randint(0, vocab, (batch, seq + 1), generator=g).to(device)
        return model, (lambda: (data[:, :-1],)), (lambda out: nn.functional.cross_entropy(
            out.reshape(-1, vocab).float(), data[:, 1:].reshape(-1))), seq
    if family == "recommender":
        tables, rows = {"dlrm-small": (8, 250_000), "dlrm-large": (26, 500_000)}[size]
        model = Dlrm(tables, rows, 128, 13)
        dense = torch.randn(batch, 13, generator=g).to(device)
        sparse = torch.randint(0, rows, (batch, tables, 4), generator=g).to(device)
        y = torch.rand(batch, 1, generator=g).to(device)
        return model, (lambda: (dense, sparse)), (lambda out: nn.functional.binary_cross_entropy_with_logits(
            out.float(), y)), None
    if family == "mlp":
        width = {"tiny": 256, "small": 1024}[size]
        model = nn.Sequential(nn.Linear(64, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(), nn.Linear(width, 10))
        x = torch.randn(batch, 64, generator=g).to(device)
        y = torch.randint(0, 10, (batch,), generator=g).to(device)
        return model, (lambda: (x,)), (lambda out: nn.functional.cross_entropy(out.float(), y)), None
    raise SystemExit(f"unknown family {family}")
