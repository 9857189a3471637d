// Small formatting rules shared by the panels.
export function age(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  if (s < 172800) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function duration(startIso, endIso) {
  const ms = Date.parse(endIso) - Date.parse(startIso);
  return Number.isFinite(ms) ? (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`) : '?';
}

export function shortDigest(d) {
  if (typeof d !== 'string') return '-';
  const hex = d.startsWith('sha256:') ? d.slice(7) : d;
  return `${hex.slice(0, 12)}…`;
}

export function bytes(n) {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function time(iso) {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '-';
}

/** One normalized resource as a person reads it: what, and how it is touched. */
export function resourceText(r) {
  switch (r.kind) {
    case 'path':
      return `${r.access} ${r.path}`;
    case 'host':
      return `host ${r.host}${r.port === null ? '' : `:${r.port}`}`;
    case 'ref':
      return `${r.access} ref ${r.ref}`;
    case 'resource':
      return `${r.access} ${r.system}/${r.type} ${r.id}`;
    case 'program':
      return `run ${[r.path ?? r.name, ...r.args].join(' ')}${r.wrappers.length ? ` (under ${r.wrappers.join(', ')})` : ''}${r.unresolved ? ` — unresolved: ${r.unresolved}` : ''}`;
    default:
      return JSON.stringify(r);
  }
}
