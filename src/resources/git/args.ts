/** Git with nothing from the user's config that could run code or rewrite its output. */
export function gitArgs(...args: string[]): string[] {
  return ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false', '--no-optional-locks', ...args];
}
