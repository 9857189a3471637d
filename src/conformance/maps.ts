// The maps that ship with the kit (`--map toolgate`, `--map server-filesystem`); any other map is
// a JSON file of the same shape (map.ts).
import type { ConformanceMap } from './map.js';

export const SHIPPED_MAPS: Readonly<Record<string, ConformanceMap>> = {
  toolgate: {
    name: 'toolgate',
    paths: 'relative',
    read: { tool: 'fs_read', args: { path: '{path}' } },
    page: { tool: 'fs_read', args: { path: '{path}', start_line: '{line}', max_lines: '{lines}' } },
    write: { tool: 'fs_write', args: { path: '{path}', content: '{content}', mode: 'create_or_replace' } },
    edit: { tool: 'fs_patch', args: { files: [{ path: '{path}', edits: '{edits}' }] }, edit_fields: { old: 'old', new: 'new' } },
    list: { tool: 'fs_list', args: { path: '{path}' } },
    search: { tool: 'fs_search', args: { query: '{pattern}', include_ignored: true } },
    exec: { tool: 'shell_exec', args: { script: '{command}' } },
    rename: { tool: 'fs_rename', args: { from: '{path}', to: '{to}' } },
    delete: { tool: 'fs_delete', args: { path: '{path}' } },
    list_pages: { tool: 'fs_list', args: { path: '{path}', max_entries: '{page_size}' }, continuation: { arg: 'continuation', field: '/continuation' } },
    search_pages: { tool: 'fs_search', args: { query: '{pattern}', max_results: '{page_size}', include_ignored: true }, continuation: { arg: 'continuation', field: '/continuation' } },
  },
  'server-filesystem': {
    name: '@modelcontextprotocol/server-filesystem',
    paths: 'absolute',
    read: { tool: 'read_text_file', args: { path: '{path}' } },
    write: { tool: 'write_file', args: { path: '{path}', content: '{content}' } },
    edit: { tool: 'edit_file', args: { path: '{path}', edits: '{edits}' }, edit_fields: { old: 'oldText', new: 'newText' } },
    list: { tool: 'list_directory', args: { path: '{path}' } },
    search: { tool: 'search_files', args: { path: '{root}', pattern: '{pattern}' } },
    rename: { tool: 'move_file', args: { source: '{path}', destination: '{to}' } },
  },
};
