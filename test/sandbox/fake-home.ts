import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { newMarker } from './fixtures.js';

/** The real interpreter the fake pyenv wraps (the host's own python3, not a pyenv shim of the host). */
export const HOST_PYTHON = '/usr/bin/python3';

/** Credential files planted in a fake home, home-relative, each holding a fresh canary. */
export const PLANTED_CREDENTIALS: readonly string[] = [
  '.aws/credentials',
  '.ssh/id_ed25519',
  '.npmrc',
  '.netrc',
  '.git-credentials',
  '.docker/config.json',
  '.config/gcloud/credentials.db',
  '.gnupg/private-keys-v1.d/key.key',
  '.local/share/keyrings/login.keyring',
  '.mozilla/firefox/profile/logins.json',
  '.config/google-chrome/Default/Login Data',
  // inside exposed toolchain directories (or next to them)
  '.cargo/credentials.toml',
  '.cargo/credentials',
  '.pyenv/versions/3.99.0/pip.conf',
  '.nvm/versions/node/v20.99.0/etc/npmrc',
];

function put(path: string, text: string, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
}

export interface FakeHome {
  readonly home: string;
  /** home-relative credential path → its canary */
  readonly canaries: Map<string, string>;
  /** Every file of the toolchains, with its content now, to compare after the attacks. */
  snapshot(): Map<string, string>;
}

const TOOLCHAIN_FILES = [
  '.pyenv/shims/python3',
  '.pyenv/versions/3.99.0/bin/python3',
  '.cargo/bin/cargo',
  '.nvm/versions/node/v20.99.0/bin/node',
  '.local/bin/mytool',
];

/**
 * A home with working toolchains (a pyenv whose shim finds its version through PYENV_ROOT and
 * runs the host's python3, a cargo, an nvm node, a ~/.local/bin tool: shell scripts that say
 * who they are) and planted credential stores. `onlyDots`: no ordinary entry, so the sandbox
 * covers the whole home with one tmpfs (the other branch of the profile).
 */
export function makeFakeHome(home: string, o: { onlyDots?: boolean } = {}): FakeHome {
  // The shim finds its interpreter as pyenv's do: through PYENV_ROOT, which the sandbox sets.
  put(join(home, '.pyenv/shims/python3'), '#!/bin/sh\nexec "$PYENV_ROOT/versions/3.99.0/bin/python3" "$@"\n', 0o755);
  put(join(home, '.pyenv/versions/3.99.0/bin/python3'), `#!/bin/sh\nexec ${HOST_PYTHON} "$@"\n`, 0o755);
  put(join(home, '.cargo/bin/cargo'), '#!/bin/sh\necho "cargo from the fake home"\n', 0o755);
  put(join(home, '.nvm/versions/node/v20.99.0/bin/node'), '#!/bin/sh\necho "node v20.99.0 from nvm, NVM_DIR=$NVM_DIR"\n', 0o755);
  put(join(home, '.local/bin/mytool'), '#!/bin/sh\necho "mytool from ~/.local/bin"\n', 0o755);
  if (!o.onlyDots) put(join(home, 'notes.txt'), 'an ordinary file of the home\n');
  const canaries = new Map<string, string>();
  for (const rel of PLANTED_CREDENTIALS) {
    const canary = `tgcanary${newMarker()}`;
    put(join(home, rel), `${canary}\n`, 0o600);
    canaries.set(rel, canary);
  }
  return {
    home,
    canaries,
    snapshot: () => new Map(TOOLCHAIN_FILES.map((rel) => [rel, readFileSync(join(home, rel), 'utf8')])),
  };
}
