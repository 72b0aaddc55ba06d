"""Small models for the front-half suites (capture, passes, lowering, planner).

Each model exercises a few ops of the op table; together they cover all of it. Weights are seeded
and BatchNorm statistics randomised, so that folding and lowering mistakes show in the numbers.
"""

import torch
import torch.nn.functional as F
from torch import nn


def randomise_bn(bn: nn.modules.batchnorm._BatchNorm) -> None:
    with torch.no_grad():
        bn.running_mean.normal_()
        bn.running_var.uniform_(0.5, 2.0)
        bn.weight.normal_()
        bn.bias.normal_()


class SmallCnn(nn.Module):
    """conv, BN (folded), relu, maxpool, add, linear (addmm), softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 4 * 4, 10)
        randomise_bn(self.bn1)
        randomise_bn(self.bn2)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = y + torch.relu(self.bn2(self.conv2(y)))  # residual
        y = self.pool(y)
        return torch.softmax(self.fc(torch.flatten(y, 1)), dim=-1)


class Mlp(nn.Module):
    """784 -> 32 -> 16 -> 10, as in ExecuTorch's Pico 2 demo; sigmoid and tanh for variety."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, 10)

    def forward(self, x):
        return self.fc3(torch.tanh(self.fc2(torch.sigmoid(self.fc1(x)))))


class PoolsAndShapes(nn.Module):
    """avg_pool2d, adaptive avg pool, mean, permute, cat, constant pad, clamp, hardtanh, sub, div."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 1, groups=2)

    def forward(self, x):
        a = F.avg_pool2d(self.conv(x), 2)  # [1,4,3,3]
        b = F.adaptive_avg_pool2d(x, (2, 3))  # [1,4,2,3]
        c = torch.cat([a.flatten(2), b.flatten(2)], dim=2)  # [1,4,15]
        d = c.permute(0, 2, 1)  # [1,15,4]
        e = F.pad(d, (1, 2), value=0.5)  # [1,15,7]
        f = torch.clamp(e, -0.25, 0.75) - F.hardtanh(e, -0.5, 0.5)
        g = f / (torch.sigmoid(e) + 1.0)
        return g, x.mean(dim=[2, 3])


class Activations(nn.Module):
    """hardswish and hardsigmoid (written as add/clamp/mul/div, fused again by our loader), relu6 (hardtanh),
    mul by a scalar."""

    def forward(self, x):
        return F.hardswish(x) * 0.5 + F.hardsigmoid(x), F.relu6(x * 4)


class NeuralNetOps(nn.Module):
    """leaky_relu, elu, gelu (a str argument), log_softmax, layer_norm (three outputs, one read through getitem),
    nearest and bilinear upsampling (float[]? scale factors), transposed convolution, clamp by a tensor."""

    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)
        self.norm = nn.LayerNorm(8)
        self.register_buffer("ceiling", torch.linspace(0.5, 2.0, 4).reshape(4, 1, 1))

    def forward(self, x):
        y = F.gelu(self.norm(F.leaky_relu(self.up(x), 0.1)), approximate="tanh")  # [1,4,8,8]
        y = F.avg_pool2d(F.elu(y), (3, 2), stride=(2, 2))  # [1,4,3,4]
        near = F.interpolate(y, scale_factor=2.0)
        smooth = F.interpolate(y, size=(6, 8), mode="bilinear")
        return F.log_softmax(torch.clamp(near + smooth, max=self.ceiling), dim=1)


class AdaptiveMaxPool(nn.Module):
    """adaptive_max_pool2d: values and indices (an op ExecuTorch's portable library does not have)."""

    def forward(self, x):
        values, indices = F.adaptive_max_pool2d(x, (3, 5), return_indices=True)
        return values, indices


class Matmuls(nn.Module):
    """mm and bmm on inputs (not weights), unsqueeze/squeeze."""

    def forward(self, a, b, c):
        m = torch.mm(a, b)  # [3,5]
        bm = torch.bmm(c, c.transpose(1, 2))  # [2,3,3]
        return m.unsqueeze(1), bm.squeeze(0)


class LoneBatchNorm(nn.Module):
    """A BatchNorm with no convolution before it stays a kernel call (three outs)."""

    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(3)
        randomise_bn(self.bn)

    def forward(self, x):
        return self.bn(x) * 2


class DtypeCast(nn.Module):
    """Real casts (truncation toward zero) around fp32 arithmetic: the kernels compute float32 only."""

    def forward(self, x):
        return (x * 4).to(torch.int32).to(torch.float32) * 2


class Passthrough(nn.Module):
    """Outputs that are an input, twice the same value, and a constant."""

    def __init__(self):
        super().__init__()
        self.register_buffer("k", torch.arange(4, dtype=torch.float32))

    def forward(self, x):
        y = x + 1
        return x, y, y, self.k


class Fn(nn.Module):
    """A function as a module, for one-op models; `params` become its (frozen) weights."""

    def __init__(self, fn, *params):
        super().__init__()
        self.fn = fn
        self.params = nn.ParameterList([nn.Parameter(p, requires_grad=False) for p in params])

    def forward(self, *xs):
        return self.fn(*xs, *self.params)


def inputs_for(model: nn.Module):
    g = torch.Generator().manual_seed(0)
    if isinstance(model, SmallCnn):
        return (torch.randn(1, 3, 8, 8, generator=g),)
    if isinstance(model, Mlp):
        return (torch.randn(1, 784, generator=g),)
    if isinstance(model, PoolsAndShapes):
        return (torch.randn(1, 4, 6, 6, generator=g),)
    if isinstance(model, Activations):
        return (torch.randn(2, 5, generator=g) * 4,)
    if isinstance(model, AdaptiveMaxPool):
        return (torch.randn(1, 2, 7, 9, generator=g),)
    if isinstance(model, NeuralNetOps):
        return (torch.randn(1, 3, 4, 4, generator=g),)
    if isinstance(model, Matmuls):
        return (torch.randn(3, 4, generator=g), torch.randn(4, 5, generator=g), torch.randn(2, 3, 4, generator=g))
    if isinstance(model, LoneBatchNorm):
        return (torch.randn(1, 3, 4, 4, generator=g),)
    if isinstance(model, DtypeCast):
        return (torch.randn(2, 3, generator=g),)
    if isinstance(model, Passthrough):
        return (torch.randn(4, generator=g),)
    if isinstance(model, TinyMobileNet):
        return (torch.randn(1, 3, 32, 32, generator=g),)
    if isinstance(model, Slicing):
        return (torch.randn(1, 4, 6, 6, generator=g), torch.randint(0, 10, (2, 3), generator=g))
    raise KeyError(type(model).__name__)


def make(cls):
    torch.manual_seed(0)
    model = cls().eval()
    return model, inputs_for(model)


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.block = nn.Sequential(
            nn.Conv2d(cin, hidden, 1, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
            nn.BatchNorm2d(hidden),
            nn.ReLU6(),
            nn.Conv2d(hidden, cout, 1, bias=False),
            nn.BatchNorm2d(cout),
        )
        for m in self.block:
            if isinstance(m, nn.BatchNorm2d):
                randomise_bn(m)

    def forward(self, x):
        y = self.block(x)
        return x + y if self.use_res else y


class TinyMobileNet(nn.Module):
    """MobileNetV2-style: depthwise convs, ReLU6, residual adds, global pool, classifier."""

    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.ReLU6())
        self.blocks = nn.Sequential(
            InvertedResidual(8, 8, 1, 4),
            InvertedResidual(8, 16, 2, 4),
            InvertedResidual(16, 16, 1, 4),
            InvertedResidual(16, 24, 2, 4),
        )
        self.head = nn.Linear(24, 10)

    def forward(self, x):
        y = self.blocks(self.stem(x))
        return self.head(F.adaptive_avg_pool2d(y, 1).flatten(1))


class Slicing(nn.Module):
    """slice (negative, stepped, past the end), select, chunk/split (getitem), expand, embedding, and the
    where/comparison/logical ops of a masked-softmax guard, abs, neg, minimum, maximum, sum, full_like."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 6)

    def forward(self, x, tokens):
        a, b = torch.chunk(x, 2, dim=1)  # [1, 2, 6, 6] each
        rows = a[:, :, 1:-1:2, -4:99]  # [1, 2, 2, 4]
        last = b.select(2, -1)  # [1, 2, 6]
        wide = last.unsqueeze(2).expand(1, 2, 3, 6)
        e = self.embed(tokens).sum(dim=(0, 1), keepdim=True)  # [1, 1, 6]
        mixed = torch.maximum(wide, e.unsqueeze(0)) - torch.minimum(-wide.abs(), rows.sum(dim=[1, 2, 3], keepdim=True))
        keep = torch.logical_not(mixed <= 0.1)
        guarded = torch.where(torch.logical_not(keep.any(dim=-1, keepdim=True)), torch.zeros_like(mixed), mixed)
        compared = [
            getattr(torch, c)(mixed, other) for c in ("eq", "ne", "gt", "ge", "lt", "le") for other in (0.5, wide)
        ]
        flags = torch.stack(compared).any(dim=0)
        return guarded, flags, rows.sum(dim=[1, -1])


ALL_MODELS = [
    SmallCnn,
    Mlp,
    PoolsAndShapes,
    Activations,
    Matmuls,
    LoneBatchNorm,
    DtypeCast,
    Passthrough,
    TinyMobileNet,
    Slicing,
    NeuralNetOps,
    AdaptiveMaxPool,
]
