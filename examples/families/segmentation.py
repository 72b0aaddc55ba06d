"""A small encoder-decoder for semantic segmentation (U-Net style): three strided 3x3 convolutions down to
1/8 resolution, back up by a ConvTranspose2d, a bilinear F.interpolate and an nn.Upsample, each joined to the
encoder's feature map of the same size (add or concat); 64x64x3 in, per-pixel logits for 3 classes out."""

import torch
from torch import nn
from torch.nn import functional as F

from _weights import seeded, settle_batchnorm


def _conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class SegNet(nn.Module):
    def __init__(self, classes: int = 3):
        super().__init__()
        self.enc1 = _conv_bn(3, 16, 2)  # 32x32
        self.enc2 = _conv_bn(16, 32, 2)  # 16x16
        self.enc3 = _conv_bn(32, 64, 2)  # 8x8
        self.up3 = nn.ConvTranspose2d(64, 32, 2, stride=2)  # 16x16
        self.dec2 = _conv_bn(32, 32)
        self.dec1 = _conv_bn(32 + 16, 16)  # after the bilinear upsample and the concat with enc1
        self.up1 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)  # 64x64
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(e1)
        e3 = self.enc3(e2)
        d2 = self.dec2(torch.relu(self.up3(e3)) + e2)
        d1 = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([d1, e1], dim=1))
        return self.head(self.up1(d1))


def factory():
    gen = seeded(18)
    x = torch.randn(1, 3, 64, 64, generator=gen)
    return settle_batchnorm(SegNet(), x, gen), (x,)
