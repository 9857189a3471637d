// A 50-policy set over ten tools, shaped like a real deployment: path rules that apply to every
// action, per-tool permits and forbids, host and ref rules, and a few effect-class rules.
import { z } from 'zod';
import { defineTool, type AnyTool, type CapabilityDimension } from '../../src/registry/index.js';
import type { EffectClass } from '../../src/protocol/index.js';

function fakeTool(name: string, effect: EffectClass, capabilities: CapabilityDimension[]): AnyTool {
  return defineTool({
    name,
    version: '1.0.0',
    description: `bench tool ${name}`,
    owner: 'bench',
    effect_class: effect,
    reversible: effect === 'read',
    capabilities,
    args: z.strictObject({ target: z.string() }),
    result: z.strictObject({}),
    timeout_ms: 1000,
    max_output_bytes: 1024,
    cancellation: 'cooperative',
    idempotency: 'safe_to_repeat',
    normalize: () => ({ resources: [], prepared: undefined }),
    execute: () => Promise.resolve({ status: 'succeeded', result: {} }),
  }) as unknown as AnyTool;
}

/** Tools the 50 policies name beyond the built-in ones (fs.read, fs.write, fs.patch, …). */
export function benchTools(): AnyTool[] {
  return [
    fakeTool('fs.search', 'read', ['fs.read']),
    fakeTool('shell.exec', 'execute', ['process']),
    fakeTool('test.run', 'execute', ['process']),
    fakeTool('net.fetch', 'network', ['network']),
    fakeTool('git.commit', 'write', ['git']),
    fakeTool('git.push', 'publish', ['git', 'network']),
    fakeTool('pkg.publish', 'publish', ['network']),
  ];
}

const A = (t: string): string => `Toolgate::Action::"${t}"`;

export function fiftyPolicies(): string {
  const p: string[] = [];
  // 8 rules on paths for every action
  p.push('@id("read-ws") permit (principal, action, resource is Toolgate::Path) when { context.effect == "read" && resource.access == "read" };');
  p.push('@id("change-ws") permit (principal, action, resource is Toolgate::Path) when { ["write", "execute"].contains(context.effect) };');
  p.push('@id("no-secrets") forbid (principal, action, resource is Toolgate::Path) when { resource.class == "secret" };');
  p.push('@id("no-git-writes") forbid (principal, action, resource is Toolgate::Path) when { resource.class == "protected" && resource.access != "read" };');
  p.push('@id("no-vendor-writes") forbid (principal, action, resource is Toolgate::Path) when { resource.path like "vendor/*" && resource.access != "read" };');
  p.push('@id("no-lockfile-delete") forbid (principal, action, resource is Toolgate::Path) when { resource.path like "*lock*" && resource.access == "delete" };');
  p.push('@id("no-node-modules-exec") forbid (principal, action, resource is Toolgate::Path) when { resource.path like "node_modules/*" && resource.access == "execute" };');
  p.push('@id("tenant-sandbox") forbid (principal, action, resource is Toolgate::Path) when { principal.tenant == "sandbox" && resource.access != "read" };');
  // 24 per-tool rules (a few per tool)
  const tools = ['fs.write', 'fs.search', 'fs.patch', 'shell.exec', 'test.run', 'git.commit', 'net.fetch', 'pkg.publish'];
  tools.forEach((t, i) => {
    p.push(`@id("tool-${i}-tool-level") permit (principal, action == ${A(t)}, resource is Toolgate::Tool) when { context.tool_version like "1.*" };`);
    p.push(`@id("tool-${i}-no-old") forbid (principal, action == ${A(t)}, resource) when { context.tool_version like "0.*" };`);
    p.push(`@id("tool-${i}-audited") forbid (principal, action == ${A(t)}, resource) when { principal.principal == "revoked-${i}" };`);
  });
  // 10 host rules
  for (let i = 0; i < 5; i++) p.push(`@id("host-allow-${i}") @approval("required") permit (principal, action in [${A('net.fetch')}, ${A('git.push')}, ${A('pkg.publish')}], resource == Toolgate::Host::"mirror${i}.example.com:443");`);
  for (let i = 0; i < 5; i++) p.push(`@id("host-deny-${i}") forbid (principal, action, resource is Toolgate::Host) when { resource.host like "*.bad${i}.example" || resource.port == ${8000 + i} };`);
  // 5 ref rules
  p.push('@id("ref-read") permit (principal, action, resource is Toolgate::Ref) when { resource.access == "read" };');
  p.push('@id("ref-branches") permit (principal, action == Toolgate::Action::"git.commit", resource is Toolgate::Ref) when { resource.ref like "refs/heads/agent/*" };');
  p.push('@id("ref-push") @approval("required") permit (principal, action == Toolgate::Action::"git.push", resource is Toolgate::Ref) when { resource.ref like "refs/heads/*" };');
  p.push('@id("ref-no-main") forbid (principal, action, resource is Toolgate::Ref) when { resource.ref == "refs/heads/main" && resource.access == "write" };');
  p.push('@id("ref-no-tags") forbid (principal, action, resource is Toolgate::Ref) when { resource.ref like "refs/tags/*" && resource.access == "write" };');
  // 3 effect-class rules
  p.push('@id("irreversible") @approval("required") permit (principal, action, resource) when { ["delete", "publish", "send", "deploy", "charge"].contains(context.effect) };');
  p.push('@id("no-charge") forbid (principal, action, resource) when { context.effect == "charge" };');
  p.push('@id("no-deploy-sandbox") forbid (principal, action, resource) when { context.effect == "deploy" && principal.tenant == "sandbox" };');
  if (p.length !== 50) throw new Error(`expected 50 policies, built ${p.length}`);
  return p.join('\n');
}
