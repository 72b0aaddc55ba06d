/* RP2350 boot ROM: an image boots only if a block with an IMAGE_DEF item lies in the first 4 KiB of
 * flash. This is the datasheet's minimal Arm block (RP2350 datasheet 5.9.5, "Minimum viable image
 * metadata"): start marker, IMAGE_TYPE item (executable, Arm, Secure, RP2350), LAST item, a link of 0
 * (the block loops to itself), end marker. The linker script places it right after the vectors. */
#include <stdint.h>

__attribute__((used, section(".mx_boot_block"))) static const uint32_t mx_rp2350_image_def[5] = {
    0xFFFFDED3u,   /* PICOBIN_BLOCK_MARKER_START */
    0x10210142u,   /* IMAGE_TYPE item, 1 word: EXE | Arm | Secure | RP2350 */
    0x000001FFu,   /* LAST item, 1 word of items before it */
    0x00000000u,   /* relative link to the next block: itself */
    0xAB123579u,   /* PICOBIN_BLOCK_MARKER_END */
};
