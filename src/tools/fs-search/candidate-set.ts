// The files a search may look at: what candidates.ts lists and candidate-cache.ts keeps.

export interface CandidateSet {
  /** Workspace-relative regular files in result order. */
  readonly files: readonly string[];
  /** Digest of `files`: any file added, removed or newly ignored changes it. */
  readonly listDigest: string;
  readonly skipped: { readonly ignored: number; readonly secret: number; readonly generated: number };
  readonly source: 'git' | 'walk';
}
