/**
 * How to install a missing system program, in the words a model or an operator can act on.
 * Kept in step with scripts/prerequisites.mjs (which runs before the build and so cannot import
 * this); test/package/prerequisites.test.ts checks that the two tables agree.
 */
export const SYSTEM_PACKAGES = {
  bwrap: { debian: 'bubblewrap', fedora: 'bubblewrap', arch: 'bubblewrap' },
  rg: { debian: 'ripgrep', fedora: 'ripgrep', arch: 'ripgrep' },
  git: { debian: 'git', fedora: 'git', arch: 'git' },
  script: { debian: 'bsdutils', fedora: 'util-linux-script', arch: 'util-linux' },
  ip: { debian: 'iproute2', fedora: 'iproute', arch: 'iproute2' },
  curl: { debian: 'curl', fedora: 'curl', arch: 'curl' },
  initdb: { debian: 'postgresql', fedora: 'postgresql-server', arch: 'postgresql' },
  strace: { debian: 'strace', fedora: 'strace', arch: 'strace' },
  chromium: { debian: 'chromium', fedora: 'chromium', arch: 'chromium' },
} as const;

export type SystemProgram = keyof typeof SYSTEM_PACKAGES;

/** One line: the package and the command that installs it on the common distributions. */
export function installHint(program: SystemProgram): string {
  const p = SYSTEM_PACKAGES[program];
  return `install the ${p.debian} package: \`sudo apt-get install -y ${p.debian}\` (Debian/Ubuntu), \`sudo dnf install -y ${p.fedora}\` (Fedora) or \`sudo pacman -S ${p.arch}\` (Arch)`;
}
