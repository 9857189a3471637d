/** What a sandboxed command may consume. Every field is always set once defaults are applied. */
export interface ResourceLimits {
  readonly cpu_seconds: number;
  readonly address_space_bytes: number;
  readonly processes: number;
  readonly file_size_bytes: number;
  readonly open_files: number;
  /** Per stream; past it the command is ended with reason `output_limit`. */
  readonly output_bytes: number;
}

export const DEFAULT_LIMITS: ResourceLimits = {
  cpu_seconds: 300,
  // V8 and other JITs reserve several GiB of address space up front; 8 GiB lets `node` start.
  address_space_bytes: 8 * 1024 ** 3,
  processes: 256,
  file_size_bytes: 1024 ** 3,
  open_files: 1024,
  output_bytes: 64 * 1024 ** 2,
};

/** Upper bounds a caller may ask for. */
export const MAX_LIMITS: ResourceLimits = {
  cpu_seconds: 24 * 3600,
  address_space_bytes: 64 * 1024 ** 3,
  processes: 4096,
  file_size_bytes: 64 * 1024 ** 3,
  open_files: 65536,
  output_bytes: 8 * 1024 ** 3,
};

/** Who holds a limit: the kernel through an rlimit or a cgroup, Toolgate's supervisor, or nobody. */
export type Enforcer = 'rlimit' | 'cgroup' | 'supervisor' | 'none';

export interface LimitInForce {
  readonly value: number;
  readonly enforced_by: Enforcer;
  /** Why a limit is weaker than asked (e.g. RLIMIT_NPROC does not bind uid 0). */
  readonly note?: string;
}

export type LimitsInForce = { readonly [K in keyof ResourceLimits]: LimitInForce };

/** Limits as a caller gives them: any subset, absent fields (or `undefined`) take the default. */
export type LimitsRequest = { readonly [K in keyof ResourceLimits]?: number | undefined };

export function withDefaults(partial: LimitsRequest | undefined): ResourceLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(DEFAULT_LIMITS) as (keyof ResourceLimits)[]) {
    const v = partial?.[key];
    if (v !== undefined) out[key] = Math.min(Math.max(1, Math.floor(v)), MAX_LIMITS[key]);
  }
  return out;
}

/** RLIMIT_FSIZE is set in 512-byte blocks by the shell's `ulimit -f`. */
export const FSIZE_BLOCK = 512;

export function fileSizeBlocks(bytes: number): number {
  return Math.max(1, Math.ceil(bytes / FSIZE_BLOCK));
}
