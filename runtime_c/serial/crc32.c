/* CRC-32 as IEEE 802.3, zlib and PNG define it (reflected polynomial 0xEDB88320, initial and final XOR
 * 0xFFFFFFFF). A nibble table: 64 bytes of flash instead of 1 KiB, still ~4x faster than bit by bit, which
 * matters when LOAD_END checks a whole model image. */
#include "serial_internal.h"

static const uint32_t nibble_table[16] = {
    0x00000000u, 0x1DB71064u, 0x3B6E20C8u, 0x26D930ACu, 0x76DC4190u, 0x6B6B51F4u, 0x4DB26158u, 0x5005713Cu,
    0xEDB88320u, 0xF00F9344u, 0xD6D6A3E8u, 0xCB61B38Cu, 0x9B64C2B0u, 0x86D3D2D4u, 0xA00AE278u, 0xBDBDF21Cu,
};

uint32_t mx_crc32(uint32_t crc, const uint8_t *data, uint32_t len) {
  crc = ~crc;
  for (uint32_t i = 0; i < len; i++) {
    crc ^= data[i];
    crc = (crc >> 4) ^ nibble_table[crc & 0xFu];
    crc = (crc >> 4) ^ nibble_table[crc & 0xFu];
  }
  return ~crc;
}
