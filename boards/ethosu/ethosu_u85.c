/* The Ethos-U85's init registers (ethosu_u85.h). Facts and their sources: README.md, "The U85". */
#include "ethosu_u85.h"

#include "ethosu_regs.h"

/* Arm's default outstanding transactions per port: the SRAM ports 12 reads and 16 writes, the external ones
 * the most the fields hold (a smaller NPU caps them itself). */
#define SRAM_READS 12u
#define SRAM_WRITES 16u

void mx_ethosu_u85_config_default(mx_ethosu_config *c) {
  /* Entries 0, 1 (the scratch and the rest) on the SRAM ports, 2, 3 (command stream, weights) on the external
   * one: the U55's AXI0/AXI1 split, so the same REGIONCFG/QCONFIG values mean the same memory on both. */
  for (int i = 0; i < 4; i++) c->mem_attr[i] = (mx_ethosu_mem_attr){0, i >= 2 ? 1 : 0, 0};
  c->axi_sram = (mx_ethosu_axi_port){MX_ETHOSU_MAX_BEATS_256, SRAM_READS, SRAM_WRITES};
  c->axi_ext = (mx_ethosu_axi_port){MX_ETHOSU_MAX_BEATS_256, MX_ETHOSU_U85_MAX_READS, MX_ETHOSU_U85_MAX_WRITES};
  c->mac_step_cycles = 0; /* no MAC power ramping */
}

static int check_port(const mx_ethosu_axi_port *p) {
  if (p->max_beats > MX_ETHOSU_MAX_BEATS_256) return MX_ETHOSU_E_CONFIG;
  if (p->max_reads < 1 || p->max_reads > MX_ETHOSU_U85_MAX_READS) return MX_ETHOSU_E_CONFIG;
  if (p->max_writes < 1 || p->max_writes > MX_ETHOSU_U85_MAX_WRITES) return MX_ETHOSU_E_CONFIG;
  return MX_ETHOSU_OK;
}

int mx_ethosu_u85_check_config(const mx_ethosu_config *c) {
  for (int i = 0; i < 4; i++) {
    const mx_ethosu_mem_attr *a = &c->mem_attr[i];
    if (a->domain > MX_ETHOSU_U85_MEM_DOMAIN_MAX || a->port > 1 || a->memtype > MX_ETHOSU_MEMTYPE_MAX)
      return MX_ETHOSU_E_CONFIG;
  }
  if (c->mac_step_cycles > MX_ETHOSU_U85_MAC_STEP_MAX) return MX_ETHOSU_E_CONFIG;
  int err = check_port(&c->axi_sram);
  return err ? err : check_port(&c->axi_ext);
}

static uint32_t port_word(const mx_ethosu_axi_port *p) {
  return MX_ETHOSU_U85_AXI_WORD(p->max_beats, p->max_reads - 1u, p->max_writes - 1u);
}

void mx_ethosu_u85_write_axi(mx_ethosu_io *io, const mx_ethosu_config *c) {
  for (int i = 0; i < 4; i++) {
    const mx_ethosu_mem_attr *a = &c->mem_attr[i];
    mx_ethosu_io_write(io, MX_ETHOSU_U85_MEM_ATTR(i), MX_ETHOSU_U85_MEM_ATTR_WORD(a->domain, a->port, a->memtype));
  }
  mx_ethosu_io_write(io, MX_ETHOSU_U85_AXI_SRAM, port_word(&c->axi_sram));
  mx_ethosu_io_write(io, MX_ETHOSU_U85_AXI_EXT, port_word(&c->axi_ext));
  mx_ethosu_io_write(io, MX_ETHOSU_U85_POWER_CTRL, c->mac_step_cycles);
}
