// The tree's rules as pure functions: what the store's transactions decide spawns and waits by.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskId } from '../../src/protocol/index.js';
import type { SubtaskRow } from '../../src/store/index.js';
import { checkSpawn, cycleOf, ownedBy, pathsOverlap } from '../../src/tasks/tree.js';

const id = (s: string): TaskId => s as TaskId;
function row(task: string, parent: string, owned: string[], state = 'running'): SubtaskRow {
  return { task_id: id(task), parent_id: id(parent), root_id: id('root'), depth: parent === 'root' ? 1 : 2, state, token_digest: task, record: { owned }, created_at: '', updated_at: '' };
}
const BOUNDS = { maxDepth: 3, maxFanout: 4, maxDescendants: 10 };

test('paths overlap by whole components, never by a shared prefix of a name', () => {
  assert.equal(pathsOverlap('src', 'src/a'), true);
  assert.equal(pathsOverlap('src/a', 'src'), true);
  assert.equal(pathsOverlap('src', 'srcx'), false);
  assert.equal(pathsOverlap('.', 'docs'), true);
  assert.equal(ownedBy('src/a/b.txt', ['src/a']), true);
  assert.equal(ownedBy('src/ab.txt', ['src/a']), false);
});

test('a subtask hands on only part of what it owns; a live non-ancestor holds its paths; an ended one does not', () => {
  const tree = [row('a', 'root', ['src']), row('b', 'root', ['docs'], 'completed')];
  assert.deepEqual(checkSpawn(BOUNDS, id('a'), 2, ['lib'], tree), { kind: 'ownership', reason: 'outside_owner', paths: ['lib'], task_id: 'a' });
  assert.equal(checkSpawn(BOUNDS, id('a'), 2, ['src/x'], tree), null, "the child's own parent does not hold against it");
  assert.deepEqual(checkSpawn(BOUNDS, id('root'), 1, ['src/x'], tree), { kind: 'ownership', reason: 'held_by', paths: ['src/x'], task_id: 'a' });
  assert.equal(checkSpawn(BOUNDS, id('root'), 1, ['docs'], tree), null);
});

test('the wait-for graph: a cycle through any number of waits is found, with its path', () => {
  const live = [
    { waiter: id('a'), target: id('b'), until: Infinity },
    { waiter: id('b'), target: id('c'), until: Infinity },
  ];
  assert.deepEqual(cycleOf(id('c'), [id('a')], live), ['c', 'a', 'b', 'c']);
  assert.equal(cycleOf(id('d'), [id('a')], live), null);
  assert.equal(cycleOf(id('a'), [id('c')], live), null);
});
