"""int8 embedding: the weight table is quantized per tensor and the gathered rows share its parameters (a
byte gather, no arithmetic). The quantizer's side is checked on the converted PT2E graph; the lowering runs
once the op table's aten::embedding.out takes int8 (the any-dtype data-movement kernels)."""

from __future__ import annotations

import shutil

import pytest
import torch
from torch import nn
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

import int8_model_checks as M
from mcu_export.int8.lower import match
from mcu_export.int8.prepare import capture_keeping_linear
from mcu_export.int8.quantizer import CmsisNNQuantizer
from mcu_export.passes import PRE_QUANT_PASSES, run_passes

aten = torch.ops.aten


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.fc = nn.Embedding(20, 8), nn.Linear(8, 4)

    def forward(self, tokens):
        return self.fc(self.emb(tokens))


def _tokens(n, seed):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.randint(0, 20, (2, 5), generator=gen),) for _ in range(n)]


def test_gathered_rows_share_the_weight_table_quantization():
    torch.manual_seed(0)
    calib = _tokens(4, 1)
    ep = run_passes(capture_keeping_linear(Tagger().eval(), calib[0]), PRE_QUANT_PASSES)
    prepared = prepare_pt2e(ep.module(check_guards=False), CmsisNNQuantizer())
    for batch in calib:
        prepared(*batch)
    graph = convert_pt2e(prepared).graph
    (emb,) = [n for n in graph.nodes if n.target == aten.embedding.default]
    table = emb.args[0]
    assert match.is_dq(table) and match.is_int8_qdq(table)
    users = list(emb.users)
    assert users and all(match.is_q(u) and match.qparams(u) == match.qparams(table) for u in users)


@pytest.mark.skipif(any(shutil.which(t) is None for t in ("cmake", "ninja", "cc")), reason="needs a C toolchain")
@pytest.mark.slow
def test_embedding_model_int8_throughout_and_bit_exact():
    from mcu_export.int8.interpreter import run_reference
    from mcu_export.int8.pipeline import to_int8_program
    from mcu_export.pte.writer import write_program
    from mcu_export.runners import run_program_bytes

    torch.manual_seed(0)
    model = Tagger().eval()
    calib = _tokens(8, 1)
    program, info, _plan, _q = to_int8_program(model, calib[0], calibrate=calib)
    assert info.fallbacks == []
    assert "aten::embedding.out" in M.ops(program)
    pte = write_program(program)
    for (tokens,) in _tokens(2, 9):
        ours = run_reference(program, [tokens])[0]
        assert M.cosine(ours, model(tokens).detach().numpy()) >= 0.99
        theirs = run_program_bytes(pte, [tokens.numpy()], board="host")[0]
        assert (theirs == ours).all()
