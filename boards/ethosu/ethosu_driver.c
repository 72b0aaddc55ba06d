/* Ethos-U55/U65/U85 driver (ethosu_driver.h). Facts and their sources: README.md. The U85's own init registers
 * are in ethosu_u85.c; which path runs is decided by CONFIG.product read at init, not at build time, so one
 * binary drives whichever NPU the board has. */
#include "ethosu_driver.h"

#include <stdatomic.h>

#include "ethosu_pmu.h"
#include "ethosu_regs.h"
#include "ethosu_u85.h"

/* Vela's driver payload: the tag "COP1" as a little-endian word, then actions; an action word has the
 * action in bits 0-7 and its data in bits 8-31. */
#define PAYLOAD_TAG 0x31504F43u
#define ACTION_OPTIMIZER_CONFIG 1u /* two words follow: CONFIG and ID as the optimizer compiled for */
#define ACTION_COMMAND_STREAM 2u   /* length in words: bits 16-31 low, bits 8-15 high (24 bits) */
#define ACTION_NOP 5u
#define ALIGN_MASK 0xFu /* the command stream and every region base: 16-byte aligned */
#define DEFAULT_RESET_BUDGET 100000u

typedef struct {
  const uint8_t *stream; /* first command word */
  uint32_t words;
  bool has_config;
  uint32_t config, id;
} job;

static uint32_t rd(mx_ethosu *npu, uint32_t offset) { return mx_ethosu_io_read(npu->io, offset); }

static void wr(mx_ethosu *npu, uint32_t offset, uint32_t value) { mx_ethosu_io_write(npu->io, offset, value); }

static uint32_t word_at(const uint8_t *p, size_t i) {
  p += 4u * i;
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static unsigned max_reads(unsigned product) { return product == MX_ETHOSU_PRODUCT_U65 ? 64u : 32u; }

static unsigned max_writes(unsigned product) { return product == MX_ETHOSU_PRODUCT_U65 ? 32u : 16u; }

static bool is_u85(const mx_ethosu *npu) { return MX_ETHOSU_CONFIG_PRODUCT(npu->config) == MX_ETHOSU_PRODUCT_U85; }

void mx_ethosu_config_default(mx_ethosu_config *cfg, unsigned product) {
  mx_ethosu_config c = {0};
  if (product == MX_ETHOSU_PRODUCT_U85) {
    mx_ethosu_u85_config_default(&c);
  } else {
    for (int i = 0; i < 4; i++) {
      c.axi_limit[i].max_reads = (uint8_t)max_reads(product);
      c.axi_limit[i].max_writes = (uint8_t)max_writes(product);
    }
  }
  /* The same entry numbers on all three: on the U85 entries 0, 1 are SRAM ports and 2, 3 external ones too. */
  c.region_limit[0] = 3;
  c.region_limit[1] = product == MX_ETHOSU_PRODUCT_U65 ? 2 : 0;
  for (int i = 2; i < MX_ETHOSU_REGIONS; i++) c.region_limit[i] = 1;
  c.cmd_limit = 2;
  c.address_bits = product == MX_ETHOSU_PRODUCT_U55 || product > MX_ETHOSU_PRODUCT_U85 ? 32 : 40;
  c.reset_budget = DEFAULT_RESET_BUDGET;
  *cfg = c;
}

static int check_axi_limits(const mx_ethosu_config *c, unsigned product) {
  for (int i = 0; i < 4; i++) {
    const mx_ethosu_axi_limit *l = &c->axi_limit[i];
    if (l->max_beats > MX_ETHOSU_MAX_BEATS_256 || l->memtype > MX_ETHOSU_MEMTYPE_MAX) return MX_ETHOSU_E_CONFIG;
    if (l->max_reads < 1 || l->max_reads > max_reads(product)) return MX_ETHOSU_E_CONFIG;
    if (l->max_writes < 1 || l->max_writes > max_writes(product)) return MX_ETHOSU_E_CONFIG;
  }
  return MX_ETHOSU_OK;
}

static int check_config(const mx_ethosu_config *c, unsigned product) {
  int err = product == MX_ETHOSU_PRODUCT_U85 ? mx_ethosu_u85_check_config(c) : check_axi_limits(c, product);
  if (err) return err;
  for (int i = 0; i < MX_ETHOSU_REGIONS; i++)
    if (c->region_limit[i] > 3) return MX_ETHOSU_E_CONFIG;
  if (c->cmd_limit > 3 || c->address_bits < 32 || c->address_bits > 64) return MX_ETHOSU_E_CONFIG;
  return MX_ETHOSU_OK;
}

static uint32_t regioncfg(const mx_ethosu_config *c) {
  uint32_t w = 0;
  for (int i = 0; i < MX_ETHOSU_REGIONS; i++) w |= MX_ETHOSU_REGIONCFG_FIELD(i, c->region_limit[i]);
  return w;
}

static uint32_t access_level(const mx_ethosu_config *c) {
  return (c->user ? 0u : MX_ETHOSU_PROT_PRIVILEGED) | (c->non_secure ? MX_ETHOSU_PROT_NON_SECURE : 0u);
}

static int wait_reset(mx_ethosu *npu, uint32_t budget) {
  for (uint32_t i = 0; rd(npu, MX_ETHOSU_STATUS) & MX_ETHOSU_STATUS_RESET_BUSY; i++)
    if (i >= budget) return MX_ETHOSU_E_RESET_TIMEOUT;
  return MX_ETHOSU_OK;
}

/* RESET with the wanted level, wait for it, check PROT, then the registers a reset clears. */
static int soft_reset(mx_ethosu *npu) {
  const mx_ethosu_config *c = &npu->cfg;
  uint32_t level = access_level(c);
  wr(npu, MX_ETHOSU_RESET, level);
  int err = wait_reset(npu, c->reset_budget);
  if (err) return err;
  if ((rd(npu, MX_ETHOSU_PROT) & (MX_ETHOSU_PROT_PRIVILEGED | MX_ETHOSU_PROT_NON_SECURE)) != level)
    return MX_ETHOSU_E_PROT;
  if (is_u85(npu)) {
    mx_ethosu_u85_write_axi(npu->io, c);
  } else {
    for (int i = 0; i < 4; i++) { /* U55 and U65 place the fields alike; their widths were checked at init */
      const mx_ethosu_axi_limit *l = &c->axi_limit[i];
      wr(npu, MX_ETHOSU_AXI_LIMIT(i),
         MX_ETHOSU_AXI_LIMIT_WORD(l->max_beats, l->memtype, l->max_reads - 1u, l->max_writes - 1u));
    }
  }
  wr(npu, MX_ETHOSU_QCONFIG, c->cmd_limit);
  wr(npu, MX_ETHOSU_REGIONCFG, regioncfg(c));
  npu->cmd_q = npu->idle_cmd;
  wr(npu, MX_ETHOSU_CMD, npu->idle_cmd);
  return MX_ETHOSU_OK;
}

/* U55 and U65 are architecture 1.x, the U85 2.x: a product with the other's architecture is neither. */
static bool supported(uint32_t id, unsigned product) {
  if (product == MX_ETHOSU_PRODUCT_U85) return MX_ETHOSU_ID_ARCH_MAJOR(id) == 2;
  return MX_ETHOSU_ID_ARCH_MAJOR(id) == 1 && (product == MX_ETHOSU_PRODUCT_U55 || product == MX_ETHOSU_PRODUCT_U65);
}

int mx_ethosu_init(mx_ethosu *npu, mx_ethosu_io *io, const mx_ethosu_config *cfg) {
  if (npu == 0 || io == 0) return MX_ETHOSU_E_ARG;
  *npu = (mx_ethosu){0};
  npu->io = io;
  /* Out of a hardware reset STATUS.reset_status reads 1 until the NPU is ready. */
  int err = wait_reset(npu, cfg ? cfg->reset_budget : DEFAULT_RESET_BUDGET);
  if (err) return err;
  npu->id = rd(npu, MX_ETHOSU_ID);
  npu->config = rd(npu, MX_ETHOSU_CONFIG);
  unsigned product = MX_ETHOSU_CONFIG_PRODUCT(npu->config);
  if (!supported(npu->id, product)) return MX_ETHOSU_E_PRODUCT;
  if (cfg)
    npu->cfg = *cfg;
  else
    mx_ethosu_config_default(&npu->cfg, product);
  err = check_config(&npu->cfg, product);
  if (err) return err;
  npu->idle_cmd = npu->cfg.keep_powered ? 0u : (MX_ETHOSU_CMD_CLOCK_Q | MX_ETHOSU_CMD_POWER_Q);
  npu->configured = true;
  err = soft_reset(npu);
  if (err) return err;
  npu->ready = true;
  return MX_ETHOSU_OK;
}

int mx_ethosu_reset(mx_ethosu *npu) {
  if (npu == 0) return MX_ETHOSU_E_ARG;
  if (!npu->configured) return MX_ETHOSU_E_STATE;
  int err = soft_reset(npu);
  npu->ready = err == MX_ETHOSU_OK;
  return err;
}

static int parse(const uint8_t *data, size_t bytes, job *j) {
  if (bytes < 4 || bytes % 4) return MX_ETHOSU_E_PAYLOAD_SIZE;
  if (word_at(data, 0) != PAYLOAD_TAG) return MX_ETHOSU_E_TAG;
  size_t n = bytes / 4, at = 1;
  int streams = 0;
  while (at < n) {
    uint32_t w = word_at(data, at++);
    switch (w & 0xFFu) {
      case ACTION_NOP: break;
      case ACTION_OPTIMIZER_CONFIG:
        if (n - at < 2) return MX_ETHOSU_E_TRUNCATED;
        j->has_config = true;
        j->config = word_at(data, at);
        j->id = word_at(data, at + 1);
        at += 2;
        break;
      case ACTION_COMMAND_STREAM: {
        uint32_t len = (w >> 16) | ((w >> 8) & 0xFFu) << 16;
        if (len == 0 || len > n - at) return MX_ETHOSU_E_STREAM_LENGTH;
        if (streams++) return MX_ETHOSU_E_STREAM_COUNT;
        j->stream = data + 4u * at;
        j->words = len;
        at += len;
        break;
      }
      default: return MX_ETHOSU_E_ACTION;
    }
  }
  return streams == 1 ? MX_ETHOSU_OK : MX_ETHOSU_E_STREAM_COUNT;
}

/* What the payload was compiled for against this NPU, by the rules of Arm's driver: the same product (its own
 * error, so the caller can name both: the command streams of a U55/U65 and a U85 differ), MACs per cycle and
 * command stream version equal, custom DMA only if present (U55/U65: SHRAM size is not compared; U85: the AXI
 * port counts are); the same architecture major version and at least the minor one. */
static int check_optimizer(const mx_ethosu *npu, uint32_t cfg, uint32_t id) {
  uint32_t hw = npu->config;
  if (MX_ETHOSU_CONFIG_PRODUCT(cfg) != MX_ETHOSU_CONFIG_PRODUCT(hw)) return MX_ETHOSU_E_OPT_PRODUCT;
  if (is_u85(npu) && MX_ETHOSU_U85_CONFIG_AXI_PORTS(cfg) != MX_ETHOSU_U85_CONFIG_AXI_PORTS(hw))
    return MX_ETHOSU_E_OPT_CONFIG;
  if (MX_ETHOSU_CONFIG_MACS_LOG2(cfg) != MX_ETHOSU_CONFIG_MACS_LOG2(hw) ||
      MX_ETHOSU_CONFIG_CMD_STREAM_VERSION(cfg) != MX_ETHOSU_CONFIG_CMD_STREAM_VERSION(hw) ||
      (MX_ETHOSU_CONFIG_CUSTOM_DMA(cfg) && !MX_ETHOSU_CONFIG_CUSTOM_DMA(hw)))
    return MX_ETHOSU_E_OPT_CONFIG;
  if (MX_ETHOSU_ID_ARCH_MAJOR(id) != MX_ETHOSU_ID_ARCH_MAJOR(npu->id) ||
      MX_ETHOSU_ID_ARCH_MINOR(id) > MX_ETHOSU_ID_ARCH_MINOR(npu->id))
    return MX_ETHOSU_E_OPT_ARCH;
  return MX_ETHOSU_OK;
}

static int check_address(uint64_t address, unsigned bits) {
  if (address & ALIGN_MASK) return MX_ETHOSU_E_ALIGN;
  if (bits < 64 && (address >> bits) != 0) return MX_ETHOSU_E_ADDRESS;
  return MX_ETHOSU_OK;
}

static void write_address(mx_ethosu *npu, uint32_t lo, uint32_t hi, uint64_t address) {
  wr(npu, lo, (uint32_t)address);
  if (npu->cfg.address_bits > 32) wr(npu, hi, (uint32_t)(address >> 32));
}

/* The STATUS bits that are faults on this NPU: bit 7 is the U55/U65's weight decoder fault but reserved on
 * the U85, bit 9 the U85's branch fault but reserved on the others. */
static uint32_t faults(const mx_ethosu *npu) {
  return is_u85(npu) ? MX_ETHOSU_U85_STATUS_FAULTS : MX_ETHOSU_STATUS_FAULTS;
}

/* Finished (polling): stopped with an interrupt or at the end of the stream, or a fault. */
static bool finished(const mx_ethosu *npu, uint32_t s) {
  if (s & (MX_ETHOSU_STATUS_IRQ_RAISED | faults(npu))) return true;
  return (s & MX_ETHOSU_STATUS_CMD_END_REACHED) && !(s & MX_ETHOSU_STATUS_RUNNING);
}

/* In the order of Arm's interrupt handlers (U85: bus, parse, branch, ECC). */
static int outcome(const mx_ethosu *npu, uint32_t s) {
  s &= faults(npu) | MX_ETHOSU_STATUS_CMD_END_REACHED;
  if (s & MX_ETHOSU_STATUS_BUS_ERROR) return MX_ETHOSU_E_BUS;
  if (s & MX_ETHOSU_STATUS_CMD_PARSE_ERROR) return MX_ETHOSU_E_CMD_PARSE;
  if (s & MX_ETHOSU_STATUS_WD_FAULT) return MX_ETHOSU_E_WEIGHT_DECODER;
  if (s & MX_ETHOSU_STATUS_BRANCH_FAULT) return MX_ETHOSU_E_BRANCH;
  if (s & MX_ETHOSU_STATUS_ECC_FAULT) return MX_ETHOSU_E_ECC;
  if (!(s & MX_ETHOSU_STATUS_CMD_END_REACHED)) return MX_ETHOSU_E_NOT_ENDED;
  return MX_ETHOSU_OK;
}

/* Waits for the job's end within `budget`; its STATUS in *status. */
static int wait_job(mx_ethosu *npu, uint32_t budget, uint32_t *status) {
  const mx_ethosu_config *c = &npu->cfg;
  uint64_t start = c->ticks ? c->ticks() : 0;
  for (uint64_t polls = 0;; polls++) {
    if (c->irq) {
      if (npu->irq_done) {
        *status = rd(npu, MX_ETHOSU_STATUS) | npu->irq_status;
        return MX_ETHOSU_OK;
      }
    } else {
      *status = rd(npu, MX_ETHOSU_STATUS);
      if (finished(npu, *status)) return MX_ETHOSU_OK;
    }
    uint64_t spent = c->ticks ? c->ticks() - start : polls;
    if (spent >= budget) {
      *status = rd(npu, MX_ETHOSU_STATUS);
      return MX_ETHOSU_E_TIMEOUT;
    }
    if (c->idle) c->idle();
  }
}

int mx_ethosu_run(mx_ethosu *npu, const uint8_t *cmd_data, size_t cmd_bytes, const uint64_t *base, int regions,
                  uint32_t budget) {
  if (npu == 0 || cmd_data == 0 || regions < 0 || regions > MX_ETHOSU_REGIONS || (regions > 0 && base == 0))
    return MX_ETHOSU_E_ARG;
  if (!npu->ready) return MX_ETHOSU_E_STATE;
  job j = {0};
  int err = parse(cmd_data, cmd_bytes, &j);
  npu->job_config = j.config;
  npu->job_id = j.id;
  if (!err && j.has_config) err = check_optimizer(npu, j.config, j.id);
  unsigned bits = npu->cfg.address_bits;
  uint64_t qbase = (uint64_t)(uintptr_t)j.stream;
  if (!err) err = check_address(qbase, bits);
  for (int i = 0; i < regions && !err; i++) err = check_address(base[i], bits);
  if (err) return err;
  if (rd(npu, MX_ETHOSU_STATUS) & MX_ETHOSU_STATUS_RUNNING) return MX_ETHOSU_E_BUSY;

  write_address(npu, MX_ETHOSU_QBASE, MX_ETHOSU_QBASE_HI, qbase);
  wr(npu, MX_ETHOSU_QSIZE, j.words * 4u);
  wr(npu, MX_ETHOSU_QCONFIG, npu->cfg.cmd_limit);
  for (int i = 0; i < MX_ETHOSU_REGIONS; i++)
    write_address(npu, MX_ETHOSU_BASEP(i), MX_ETHOSU_BASEP_HI(i), i < regions ? base[i] : 0u);
  wr(npu, MX_ETHOSU_REGIONCFG, regioncfg(&npu->cfg));
  npu->irq_done = 0;
  npu->irq_status = 0;
  npu->cmd_q = 0; /* Q-interfaces off: no clock or power gating while running */
  /* The payload and the inputs are in memory before the NPU starts reading them. */
  atomic_thread_fence(memory_order_seq_cst);
  mx_ethosu_pmu_start(npu->io, MX_ETHOSU_CONFIG_PRODUCT(npu->config)); /* PMU: this job's cycles (ethosu_pmu.h) */
  wr(npu, MX_ETHOSU_CMD, MX_ETHOSU_CMD_START);

  uint32_t status = 0;
  err = wait_job(npu, budget, &status);
  npu->cycles = mx_ethosu_pmu_stop(npu->io, MX_ETHOSU_CONFIG_PRODUCT(npu->config)); /* PMU: 0 = none answered */
  npu->cmd_q = npu->idle_cmd;
  wr(npu, MX_ETHOSU_CMD, MX_ETHOSU_CMD_CLEAR_IRQ | npu->idle_cmd);
  atomic_thread_fence(memory_order_seq_cst); /* the outputs are read after the NPU's end was seen */
  npu->status = status;
  if (!err) err = outcome(npu, status);
  if (err) {
    int reset = soft_reset(npu);
    if (reset) {
      npu->ready = false;
      return reset;
    }
  }
  return err;
}

void mx_ethosu_irq_handler(mx_ethosu *npu) {
  if (npu == 0 || npu->io == 0) return; /* an interrupt before init */
  uint32_t status = rd(npu, MX_ETHOSU_STATUS);
  wr(npu, MX_ETHOSU_CMD, MX_ETHOSU_CMD_CLEAR_IRQ | npu->cmd_q);
  npu->irq_status = status;
  npu->irq_done = 1;
}

const char *mx_ethosu_strerror(int err) {
  switch (err) {
    case MX_ETHOSU_OK: return "ok";
    case MX_ETHOSU_E_ARG: return "invalid argument (NULL pointer or regions outside 0..8)";
    case MX_ETHOSU_E_STATE: return "driver not initialised, or the NPU could not be reset after a failed job";
    case MX_ETHOSU_E_PRODUCT: return "not an Ethos-U55, Ethos-U65 or Ethos-U85 (ID/CONFIG)";
    case MX_ETHOSU_E_CONFIG: return "driver configuration out of range for this NPU";
    case MX_ETHOSU_E_RESET_TIMEOUT: return "NPU soft reset did not finish";
    case MX_ETHOSU_E_PROT: return "NPU did not take the requested security/privilege level (PROT)";
    case MX_ETHOSU_E_PAYLOAD_SIZE: return "payload shorter than its tag or not whole 32-bit words";
    case MX_ETHOSU_E_TAG: return "payload does not start with the tag COP1";
    case MX_ETHOSU_E_TRUNCATED: return "payload ends inside the optimizer configuration";
    case MX_ETHOSU_E_STREAM_LENGTH: return "command stream empty or longer than the payload";
    case MX_ETHOSU_E_ACTION: return "unknown driver action in the payload";
    case MX_ETHOSU_E_STREAM_COUNT: return "payload does not hold exactly one command stream";
    case MX_ETHOSU_E_OPT_CONFIG: return "payload compiled for another NPU configuration (CONFIG)";
    case MX_ETHOSU_E_OPT_ARCH: return "payload compiled for a newer NPU architecture (ID)";
    case MX_ETHOSU_E_ALIGN: return "command stream or region base not 16-byte aligned";
    case MX_ETHOSU_E_ADDRESS: return "address wider than the NPU's address bits";
    case MX_ETHOSU_E_BUSY: return "NPU already running";
    case MX_ETHOSU_E_BUS: return "NPU bus error";
    case MX_ETHOSU_E_CMD_PARSE: return "NPU command stream parse error";
    case MX_ETHOSU_E_WEIGHT_DECODER: return "NPU weight decoder fault";
    case MX_ETHOSU_E_ECC: return "NPU ECC fault";
    case MX_ETHOSU_E_NOT_ENDED: return "NPU stopped before the end of the command stream";
    case MX_ETHOSU_E_TIMEOUT: return "NPU did not finish within the budget";
    case MX_ETHOSU_E_BRANCH: return "NPU branch fault";
    case MX_ETHOSU_E_OPT_PRODUCT: return "payload compiled for another Ethos-U product (CONFIG.product)";
    default: return "unknown error";
  }
}

const char *mx_ethosu_product_name(unsigned product) {
  switch (product) {
    case MX_ETHOSU_PRODUCT_U55: return "Ethos-U55";
    case MX_ETHOSU_PRODUCT_U65: return "Ethos-U65";
    case MX_ETHOSU_PRODUCT_U85: return "Ethos-U85";
    default: return "unknown Ethos-U product";
  }
}
