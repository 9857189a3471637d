// Reads the Prometheus text exposition a real endpoint serves: one number per series.
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export function parseExposition(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not an exposition line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1] as string] = (l[2] as string).replace(/\\(.)/g, '$1');
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the series of `name` whose labels include `labels` (0 when there is none). */
export function valueOf(samples: readonly Sample[], name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Sample[]> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  if (!(res.headers.get('content-type') ?? '').startsWith('text/plain')) throw new Error(`${url}: content-type ${res.headers.get('content-type')}`);
  return parseExposition(await res.text());
}
