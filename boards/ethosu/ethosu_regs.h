/* Ethos-U55/U65/U85 register map: the offsets and fields this driver uses.
 *
 * Written from Arm's register descriptions (ethos-u-core-driver src/ethosu55_interface.h, ethosu65_interface.h
 * and ethosu85_interface.h; README.md gives file and line for each fact). Offsets are bytes from the NPU's
 * base; every register is 32 bits. Where the U85 gives an offset or a bit another meaning, both are noted.
 */
#ifndef MX_ETHOSU_REGS_H
#define MX_ETHOSU_REGS_H

#include <stdint.h>

/* ---- Offsets ---- */
#define MX_ETHOSU_ID 0x000u
#define MX_ETHOSU_STATUS 0x004u
#define MX_ETHOSU_CMD 0x008u
#define MX_ETHOSU_RESET 0x00Cu
#define MX_ETHOSU_QBASE 0x010u    /* command stream address, low word */
#define MX_ETHOSU_QBASE_HI 0x014u /* high word: reserved on the U55 (32-bit addresses), used by the U65 (40) */
#define MX_ETHOSU_QREAD 0x018u    /* read-only: the NPU's position in the stream */
#define MX_ETHOSU_QCONFIG 0x01Cu  /* the AXI_LIMIT entry the command stream's fetches use */
#define MX_ETHOSU_QSIZE 0x020u    /* command stream length in bytes */
#define MX_ETHOSU_PROT 0x024u     /* read-only: the security and privilege level in force */
#define MX_ETHOSU_CONFIG 0x028u   /* read-only: product, MACs, command stream version, SHRAM */
#define MX_ETHOSU_LOCK 0x02Cu
#define MX_ETHOSU_REGIONCFG 0x03Cu                       /* the AXI_LIMIT entry of each region, 2 bits each */
#define MX_ETHOSU_AXI_LIMIT(n) (0x040u + 4u * (unsigned)(n)) /* n = 0..3 (U55/U65) */
#define MX_ETHOSU_BASEP(n) (0x080u + 8u * (unsigned)(n))     /* region n = 0..7 base address, low word */
#define MX_ETHOSU_BASEP_HI(n) (0x084u + 8u * (unsigned)(n))  /* high word (U65/U85) */
/* The register file the host models: U55/U65 end with CID3 at 0xFFC; the U85's PMU goes on past 0x1380, but
 * every register this driver touches is below 0x100 on all three. */
#define MX_ETHOSU_REGISTER_BYTES 0x1000u
/* U85 only: where the U55/U65 have AXI_LIMIT0..3, the U85 has MEM_ATTR0..3 (what REGIONCFG/QCONFIG pick), and
 * the outstanding counts and burst split move to one register per AXI port kind. */
#define MX_ETHOSU_U85_POWER_CTRL 0x038u /* MAC power ramp: mac_step_cycles in bits 0-5 */
#define MX_ETHOSU_U85_MEM_ATTR(n) (0x040u + 4u * (unsigned)(n)) /* n = 0..3 */
#define MX_ETHOSU_U85_AXI_SRAM 0x050u
#define MX_ETHOSU_U85_AXI_EXT 0x054u

/* ---- ID ---- */
#define MX_ETHOSU_ID_VERSION_STATUS(id) ((id)&0xFu)
#define MX_ETHOSU_ID_VERSION_MINOR(id) (((id) >> 4) & 0xFu)
#define MX_ETHOSU_ID_VERSION_MAJOR(id) (((id) >> 8) & 0xFu)
#define MX_ETHOSU_ID_PRODUCT_MAJOR(id) (((id) >> 12) & 0xFu)
#define MX_ETHOSU_ID_ARCH_PATCH(id) (((id) >> 16) & 0xFu)
#define MX_ETHOSU_ID_ARCH_MINOR(id) (((id) >> 20) & 0xFFu)
#define MX_ETHOSU_ID_ARCH_MAJOR(id) ((id) >> 28) /* 1: U55 (1.1.0) and U65 (1.0.6); U85: 2 (2.0.0) */

/* ---- STATUS ---- */
#define MX_ETHOSU_STATUS_RUNNING (1u << 0)         /* 0 stopped, 1 running */
#define MX_ETHOSU_STATUS_IRQ_RAISED (1u << 1)      /* cleared by CMD.clear_irq */
#define MX_ETHOSU_STATUS_BUS_ERROR (1u << 2)       /* bus abort, processing halted; cleared by reset only */
#define MX_ETHOSU_STATUS_RESET_BUSY (1u << 3)      /* reset ongoing: other registers read 0, writes ignored */
#define MX_ETHOSU_STATUS_CMD_PARSE_ERROR (1u << 4) /* cleared by reset only */
#define MX_ETHOSU_STATUS_CMD_END_REACHED (1u << 5) /* cleared by writing QBASE or QSIZE while stopped */
#define MX_ETHOSU_STATUS_PMU_IRQ (1u << 6)
#define MX_ETHOSU_STATUS_WD_FAULT (1u << 7)  /* weight decoder decompression fault (U85: reserved) */
#define MX_ETHOSU_STATUS_ECC_FAULT (1u << 8) /* ECC fault in internal RAMs */
#define MX_ETHOSU_STATUS_BRANCH_FAULT (1u << 9) /* U85 only (reserved on U55/U65) */
#define MX_ETHOSU_STATUS_FAULTING_INTERFACE(s) (((s) >> 11) & 1u) /* on a bus abort */
#define MX_ETHOSU_STATUS_FAULTING_CHANNEL(s) (((s) >> 12) & 0xFu) /* read 0 cmd 1 IFM 2 weights 3 scale; write 8 OFM */
#define MX_ETHOSU_STATUS_FAULTS                                                                \
  (MX_ETHOSU_STATUS_BUS_ERROR | MX_ETHOSU_STATUS_CMD_PARSE_ERROR | MX_ETHOSU_STATUS_WD_FAULT | \
   MX_ETHOSU_STATUS_ECC_FAULT)
/* The U85's: bit 7 is reserved there, so it is not read as a fault. */
#define MX_ETHOSU_U85_STATUS_FAULTS                                                                \
  (MX_ETHOSU_STATUS_BUS_ERROR | MX_ETHOSU_STATUS_CMD_PARSE_ERROR | MX_ETHOSU_STATUS_BRANCH_FAULT | \
   MX_ETHOSU_STATUS_ECC_FAULT)

/* ---- CMD (write 1 to act; writing 0 has no effect) ---- */
#define MX_ETHOSU_CMD_START (1u << 0) /* transition to running */
#define MX_ETHOSU_CMD_CLEAR_IRQ (1u << 1) /* clear STATUS.irq_raised */
#define MX_ETHOSU_CMD_CLOCK_Q (1u << 2) /* allow clock gating through the clock Q-interface */
#define MX_ETHOSU_CMD_POWER_Q (1u << 3) /* allow power off through the power Q-interface */
#define MX_ETHOSU_CMD_STOP_REQUEST (1u << 4)
#define MX_ETHOSU_CMD_CLEAR_IRQ_HISTORY (0xFFFFu << 16)
#define MX_ETHOSU_CMD_RESET_VALUE 0xCu /* both Q-interfaces enabled */

/* ---- RESET (pending level, written) and PROT (active level, read): same two bits ---- */
#define MX_ETHOSU_PROT_PRIVILEGED (1u << 0) /* CPL: 0 user, 1 privileged */
#define MX_ETHOSU_PROT_NON_SECURE (1u << 1) /* CSL: 0 secure, 1 non-secure */

/* ---- CONFIG ---- */
#define MX_ETHOSU_CONFIG_MACS_LOG2(c) ((c)&0xFu) /* log2(MACs per clock cycle) */
#define MX_ETHOSU_CONFIG_CMD_STREAM_VERSION(c) (((c) >> 4) & 0xFu)
#define MX_ETHOSU_CONFIG_SHRAM_KB(c) (((c) >> 8) & 0xFFu) /* U55/U65 */
/* U85, in place of SHRAM: log2 of the number of AXI SRAM ports (bits 8-9) and of AXI external ports (bit 10),
 * which Arm's driver compares with the payload's; bits 12-13, log2 of the weight decoders, it does not. */
#define MX_ETHOSU_U85_CONFIG_AXI_PORTS(c) (((c) >> 8) & 0x7u)
#define MX_ETHOSU_CONFIG_FUNCTIONAL_SAFETY(c) (((c) >> 26) & 1u)
#define MX_ETHOSU_CONFIG_CUSTOM_DMA(c) (((c) >> 27) & 1u)
#define MX_ETHOSU_CONFIG_PRODUCT(c) ((c) >> 28)
#define MX_ETHOSU_PRODUCT_U55 0u
#define MX_ETHOSU_PRODUCT_U65 1u
#define MX_ETHOSU_PRODUCT_U85 2u

/* ---- AXI_LIMIT0..3: burst split, AxCACHE memory type, outstanding transactions - 1 ----
 * max_beats: 0 = 64 B, 1 = 128 B, 2 = 256 B. memtype: 0..11 (device non-bufferable .. write-back
 * read+write allocate). Outstanding reads - 1 in bits 16.. (U55: 5 bits, up to 32; U65: 6 bits, up to 64),
 * writes - 1 in bits 24.. (U55: 4 bits, up to 16; U65: 5 bits, up to 32). */
#define MX_ETHOSU_AXI_LIMIT_WORD(max_beats, memtype, reads_m1, writes_m1) \
  ((uint32_t)(max_beats) | ((uint32_t)(memtype) << 4) | ((uint32_t)(reads_m1) << 16) | ((uint32_t)(writes_m1) << 24))
#define MX_ETHOSU_MAX_BEATS_256 2u
#define MX_ETHOSU_MEMTYPE_MAX 11u

/* ---- REGIONCFG (2 bits per region) and QCONFIG (2 bits) ----
 * The value picks an AXI_LIMIT entry and with it the AXI port: 0, 1 = AXI0 (SRAM), 2, 3 = AXI1 (external). */
#define MX_ETHOSU_REGIONCFG_FIELD(region, limit) ((uint32_t)(limit) << (2u * (unsigned)(region)))
/* U85: the value picks a MEM_ATTR entry (0..3) instead, and that entry names the AXI port. */

/* ---- U85 MEM_ATTR0..3: memory domain (0 non-shareable .. 3 system), AXI port (0 SRAM, 1 external), AxCACHE
 * memtype (0..11, as AXI_LIMIT's) ---- */
#define MX_ETHOSU_U85_MEM_ATTR_WORD(domain, port, memtype) \
  ((uint32_t)(domain) | ((uint32_t)(port) << 2) | ((uint32_t)(memtype) << 4))
#define MX_ETHOSU_U85_MEM_DOMAIN_MAX 3u

/* ---- U85 AXI_SRAM and AXI_EXT: outstanding reads - 1 (bits 0-5, up to 64), writes - 1 (bits 8-12, up to 32),
 * burst split (bits 16-17, as AXI_LIMIT's max_beats), for every port of that kind ---- */
#define MX_ETHOSU_U85_AXI_WORD(max_beats, reads_m1, writes_m1) \
  ((uint32_t)(reads_m1) | ((uint32_t)(writes_m1) << 8) | ((uint32_t)(max_beats) << 16))
#define MX_ETHOSU_U85_MAX_READS 64u
#define MX_ETHOSU_U85_MAX_WRITES 32u
#define MX_ETHOSU_U85_MAC_STEP_MAX 63u

/* ---- PMU (performance monitor): offsets on the U55/U65; the U85 has the same block 0x1000 higher ----
 * PMCR: cnt_en 0 (counting on), event_cnt_rst 1 and cycle_cnt_rst 2 (write 1: zero the counters), mask_en 3,
 * num_event_cnt 11-15 (reads 4 on the U55/U65, 8 on the U85). PMCNTENSET/PMCNTENCLR: write 1 to start/stop a
 * counter (bit n: event counter n, bit 31: the cycle counter); both read which run. PMCCNTR: the 48-bit cycle
 * counter, low word then bits 32-47 in the high word's bits 0-15. PMCCNTR_CFG: the events that start (bits
 * 0-9) and stop (16-25) the cycle counter; its reset value is 0, NO_EVENT for both (Arm's header does not say
 * more: that the counter then counts every enabled cycle is our reading, for the FVP test to confirm). */
#define MX_ETHOSU_PMCR 0x180u
#define MX_ETHOSU_PMCNTENSET 0x184u
#define MX_ETHOSU_PMCNTENCLR 0x188u
#define MX_ETHOSU_PMCCNTR 0x1A0u
#define MX_ETHOSU_PMCCNTR_HI 0x1A4u
#define MX_ETHOSU_PMCCNTR_CFG 0x1A8u
#define MX_ETHOSU_PMEVCNTR(n) (0x300u + 4u * (unsigned)(n))
#define MX_ETHOSU_PMEVTYPER(n) (0x380u + 4u * (unsigned)(n))
#define MX_ETHOSU_PMU_U85_OFFSET 0x1000u /* the U85's PMCR is at 0x1180 */
#define MX_ETHOSU_PMCR_CNT_EN (1u << 0)
#define MX_ETHOSU_PMCR_EVENT_CNT_RST (1u << 1)
#define MX_ETHOSU_PMCR_CYCLE_CNT_RST (1u << 2)
#define MX_ETHOSU_PMCNT_CYCLE (1u << 31)
#define MX_ETHOSU_PMCCNTR_HI_MASK 0xFFFFu /* bits 32-47 of the count; the rest of the word is reserved */
#define MX_ETHOSU_PMU_EVENT_CYCLE 17u /* PMEVTYPER event numbers (pmu_event) */
#define MX_ETHOSU_PMU_EVENT_NPU_ACTIVE 35u

#endif /* MX_ETHOSU_REGS_H */
