// A request body from a workspace file: for bodies larger than an argument should carry. The file
// is a read of a path resource (authorized with the call), opened beneath the workspace root at
// execute, refused when it is a secret by name or by hard link, and bounded. The bytes sent are
// kept as an artifact: the workspace file may change afterwards, the receipt names what left.
import { closeSync } from 'node:fs';
import { ToolgateError } from '../../protocol/index.js';
import type { ArtifactRef } from '../../protocol/index.js';
import type { ArtifactSink } from '../../registry/index.js';
import { isToolgateTempName, readAtAsync, refuseSecretLink, type ResolvedPath, type Workspace } from '../../resources/index.js';
import { HTTP_MAX_FILE_BODY_BYTES } from './schema.js';

export function resolveBodyFile(workspace: Workspace, asked: string): ResolvedPath {
  const resolved = workspace.resolve(asked);
  if (!resolved.exists) throw new ToolgateError('not_found', `no such file: ${resolved.path}`, { path: resolved.path });
  if (resolved.kind === 'directory') throw new ToolgateError('invalid_resource', `${resolved.path} is a directory`, { path: resolved.path, kind: 'directory' });
  if (resolved.components.some(isToolgateTempName)) {
    throw new ToolgateError('invalid_resource', `${resolved.path} is a Toolgate temporary entry`, { path: resolved.path, reason: 'toolgate_temp_file' });
  }
  if (workspace.classifier.classify(resolved.path) === 'secret') throw new ToolgateError('secret_path', `${resolved.path} is classified as a secret path`, { path: resolved.path });
  return resolved;
}

export interface FileBody {
  readonly bytes: Buffer;
  readonly artifact: ArtifactRef;
  readonly evidence: { readonly path: string; readonly size: number; readonly sha256: string };
}

export async function readBodyFile(ctx: { readonly workspace: Workspace; readonly artifacts: ArtifactSink; readonly signal: AbortSignal }, file: ResolvedPath): Promise<FileBody> {
  const { fd, st } = ctx.workspace.openFileForRead(file);
  try {
    await refuseSecretLink(ctx.workspace, file.path, st, ctx.signal);
    if (st.size > HTTP_MAX_FILE_BODY_BYTES) {
      throw new ToolgateError('limit_exceeded', `${file.path} is ${st.size} bytes; a body file may be ${HTTP_MAX_FILE_BODY_BYTES}`, { limit: HTTP_MAX_FILE_BODY_BYTES, size: st.size });
    }
    const bytes = await readAtAsync(fd, 0, st.size, ctx.signal);
    const artifact = ctx.artifacts.put(bytes, 'application/octet-stream', `request_body:${file.path}`);
    return { bytes, artifact, evidence: { path: file.path, size: bytes.length, sha256: artifact.digest } };
  } finally {
    closeSync(fd);
  }
}
