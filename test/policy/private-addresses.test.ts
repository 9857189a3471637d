import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { attenuate, bindGrant, CompiledGrant, GrantFileError, parseGrantFile, grantDigest } from '../../src/policy/index.js';
import { T1 } from './fixtures.js';

const subject = { tenant: 'acme', principal: 'agent', task_id: T1, attempt_id: null, cancellation_epoch: 0 };
const compiled = (spec: Parameters<typeof bindGrant>[0]) => new CompiledGrant(bindGrant(spec, subject));

describe('grant private_addresses: how a grant names a non-public destination', () => {
  it('accepts canonical addresses and CIDR ranges, refuses IPv4 aliases and garbage', () => {
    assert.deepEqual(parseGrantFile({ private_addresses: ['10.0.0.0/8', '127.0.0.2', 'fd00::/8', '::1'] }).private_addresses, ['10.0.0.0/8', '127.0.0.2', 'fd00::/8', '::1']);
    for (const bad of ['0x7f.1', '0177.0.0.1', '2130706433', '127.1', '10.0.0.0/33', 'fe80::1%eth0', 'localhost', '10.0.0.0/8/1', '']) {
      assert.throws(() => parseGrantFile({ private_addresses: [bad] }), (e: unknown) => e instanceof GrantFileError && e.faults[0]?.pointer === '/private_addresses/0', bad);
    }
  });

  it('absent grants no private address; a range grants what it covers, in its family only', () => {
    assert.equal(compiled({ hosts: ['*'] }).allowsAddress('127.0.0.1', false), false);
    const g = compiled({ private_addresses: ['10.0.0.0/8', 'fd00::/8'] });
    assert.equal(g.allowsAddress('10.1.2.3', false), true);
    assert.equal(g.allowsAddress('11.0.0.1', false), false);
    assert.equal(g.allowsAddress('fd12::1', false), true);
    assert.equal(g.allowsAddress('fc00::1', false), false);
    // An IPv4-mapped form is not matched as text: resources/net hands over the IPv4 it carries.
    assert.equal(g.allowsAddress('::ffff:10.0.0.1', false), false);
  });

  it('a metadata address needs an entry that is that one address: a range covering it is not enough', () => {
    const wide = compiled({ private_addresses: ['169.254.0.0/16'] });
    assert.equal(wide.allowsAddress('169.254.169.254', true), false);
    assert.equal(wide.allowsAddress('169.254.1.1', false), true);
    const exact = compiled({ private_addresses: ['169.254.169.254', 'fd00:ec2::254'] });
    assert.equal(exact.allowsAddress('169.254.169.254', true), true);
    assert.equal(exact.allowsAddress('fd00:ec2:0::254', true), true);
    assert.equal(compiled({ private_addresses: ['169.254.169.254/32'] }).allowsAddress('169.254.169.254', true), true);
  });

  it('namesHost is a literal entry, never a glob', () => {
    const g = compiled({ hosts: ['*', 'Metadata.Google.Internal'] });
    assert.equal(g.namesHost('metadata.google.internal'), true);
    assert.equal(compiled({ hosts: ['*', '*.internal'] }).namesHost('metadata.google.internal'), false);
  });

  it('a grant without the field keeps its digest (the field is additive)', () => {
    const before = bindGrant({ hosts: ['a.com'] }, subject);
    assert.equal('private_addresses' in before, false);
    assert.notEqual(grantDigest(before), grantDigest(bindGrant({ hosts: ['a.com'], private_addresses: [] }, subject)));
  });

  it('attenuation only narrows: a child allows an address only when its parent does (property)', () => {
    const entries = ['10.0.0.0/8', '10.1.0.0/16', '127.0.0.2', '127.0.0.0/8', '169.254.169.254', '169.254.0.0/16', 'fd00::/8', '::1'];
    const probes = ['10.1.2.3', '10.2.0.1', '127.0.0.2', '127.0.0.3', '169.254.169.254', '169.254.9.9', 'fd00::5', '::1', '8.8.8.8'];
    fc.assert(
      fc.property(fc.option(fc.subarray(entries), { nil: undefined }), fc.option(fc.subarray(entries), { nil: undefined }), (parentList, childList) => {
        const parent = bindGrant(parentList === undefined ? {} : { private_addresses: parentList }, subject);
        const child = new CompiledGrant(attenuate(parent, childList === undefined ? {} : { private_addresses: childList }));
        const p = new CompiledGrant(parent);
        for (const a of probes) {
          for (const exact of [false, true]) {
            if (child.allowsAddress(a, exact)) assert.equal(p.allowsAddress(a, exact), true, `${a} widened by ${JSON.stringify(childList)}`);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
