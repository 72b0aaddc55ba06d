"""Deterministic initialisation shared by the examples: fixed seeds and non-trivial BatchNorm statistics,
so that exported numbers are reproducible and BatchNorm folding has something to fold."""

import torch
from torch import nn


def seeded(seed: int) -> torch.Generator:
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def randomize_batchnorm(model: nn.Module, gen: torch.Generator) -> None:
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(n, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(n, generator=gen) * 0.1)


def settle_batchnorm(
    model: nn.Module, example: torch.Tensor, gen: torch.Generator, batches: int = 2, shift: float = 0.5
) -> nn.Module:
    """Random affine parameters with a positive shift and running statistics measured on seeded batches shaped
    like `example`, as a BatchNorm recalibration would: every layer then sees activations of about unit scale
    and the output follows the input (with statistics unrelated to the activations, a deep model's signal fades
    and its output is mostly biases: an int8 check against it could not fail). Returns the model in eval mode."""
    norms = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        for m in norms:
            m.reset_running_stats()
            m.momentum = None  # a plain average over the batches below
            m.weight.copy_(torch.rand(m.num_features, generator=gen) * 0.25 + 0.5)
            m.bias.copy_(torch.randn(m.num_features, generator=gen) * 0.1 + shift)
        model.train()
        for _ in range(batches):
            model(torch.randn((8, *example.shape[1:]), generator=gen))
    return model.eval()
