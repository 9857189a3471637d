// Lint: type-aware rules for promises and switches, no import cycles, and the layers of
// docs/architecture (shared DESIGN §2): a module may import only from its own folder, from a
// folder on its own level, or from a lower level (an upward import fails); another layer only
// through its index.ts; a tool folder never from another tool folder. test/lint/ plants a
// violation of each and checks that it is reported.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

// Paths are taken from this file's folder, not the process's working directory, so the rules
// mean the same whichever directory eslint is started from (test/lint/ lints a copy elsewhere).
const root = import.meta.dirname;

const layers = [
  ['protocol'],
  ['registry', 'policy', 'resources', 'redact'],
  ['store', 'artifacts', 'sandbox', 'provenance'],
  ['tools', 'connectors', 'tasks', 'upstream'],
  ['profiles', 'runtime'],
  ['telemetry', 'server', 'ui', 'conformance', 'cli'],
];

// Every rule below is a zone of import-x/no-restricted-paths: the plugin already resolves each
// import to its file with the TypeScript resolver, so a zone is a few lines of data, not a
// hand-written rule to maintain. A zone's `message` names which design rule fired.
const zones = [];
layers.forEach((level, i) => {
  const higher = layers.slice(i + 1).flat();
  const notHigher = layers.slice(0, i + 1).flat();
  for (const folder of level) {
    if (higher.length > 0) {
      zones.push({
        target: `./src/${folder}`,
        from: higher.map((h) => `./src/${h}`),
        message: `layer direction: src/${folder} may not import from a higher layer`,
      });
    }
    // No deep import: another layer is reached through its index.ts only, so the index is the
    // whole of what it exposes. (Higher layers are refused above; one report per import.)
    for (const other of notHigher) {
      if (other === folder) continue;
      zones.push({
        target: `./src/${folder}`,
        from: `./src/${other}`,
        except: ['./index.ts'],
        message: `deep import: src/${folder} may import from src/${other} only through src/${other}/index.ts`,
      });
    }
  }
});

// A tool folder imports no other tool folder (nor src/tools/index.ts, the list of them): what
// two tools share lives in a lower layer (resources/, registry/). Each tool folder is its own
// folder, so inside it anything goes; src/tools/index.ts may import every tool.
for (const entry of readdirSync(join(root, 'src/tools'), { withFileTypes: true })) {
  if (!entry.isDirectory()) continue;
  zones.push({
    target: `./src/tools/${entry.name}`,
    from: './src/tools',
    except: [`./${entry.name}`],
    message: `sibling tool: src/tools/${entry.name} may not import another tool folder or src/tools/index.ts`,
  });
}

// A compatibility profile is a thin mapping onto the runtime's public contract (docs/profiles.md):
// it builds envelopes and reads receipts, and reaches nothing else. It imports only the protocol's
// index (envelope, receipt, digests, error codes); the runtime, a tool's schema or the resources
// layer are out of its reach, so a profile cannot bypass a stage. The runtime is handed to it as a
// function at call time.
zones.push({
  target: './src/profiles',
  from: './src',
  except: ['./profiles', './protocol/index.ts'],
  message: 'profiles: src/profiles may import only src/protocol/index.ts (a profile maps onto envelopes and receipts)',
});

// The package entry, too, reaches each layer through its index.
zones.push({
  target: './src/index.ts',
  from: layers.flat().map((folder) => `./src/${folder}`),
  except: ['./index.ts'],
  message: 'deep import: src/index.ts may import a layer only through its index.ts',
});

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/.work/**', 'coverage/**', 'scratch/**', '.node-versions-work/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { 'import-x': importX },
    settings: {
      // Without this the plugin parses no .ts file when it follows an import, so
      // no-cycle saw an empty module graph and passed every cycle (issue 11).
      'import-x/extensions': ['.ts', '.js', '.mjs'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: join(root, 'tsconfig.json') })],
    },
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { zones, basePath: root }],
      'no-restricted-syntax': [
        'error',
        { selector: 'ExportAllDeclaration', message: 'export * hides what the module exposes: name each export' },
      ],
    },
  },
  {
    files: ['src/protocol/**/*.ts'],
    rules: {
      // protocol stays free of I/O; node:crypto is pure computation and ~10x faster than a JS sha256.
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^node:(?!crypto$)', message: 'src/protocol may import no node:* module but node:crypto' }] },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', performance: 'readonly', URL: 'readonly' } },
  },
);
