// `payctl templates ...`: the built binary against a real server.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { okJson as json, useCliServer } from './cli-harness.js';

const COMMANDS = ['templates:list', 'templates:get', 'templates:create', 'templates:update', 'templates:delete'];

const server = useCliServer(COMMANDS, 'payctl-templates-cli-');

const cli = server.cli;


describe('payctl templates', { timeout: 120_000 }, () => {
  it('list shows the system templates; create, get, update (full replacement), delete', async () => {
    const listed = await cli('templates', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/\tQuantity\tQUANTITY\tyes\tyes/);
    expect(listed.stdout).toMatch(/\tAmount\tAMOUNT\t\tyes/);

    const created = json(await cli('templates', 'create', '--name', 'Workshop', '--unit', 'HOURS', '--note', 'See you', '--json'));
    expect(created).toMatchObject({ name: 'Workshop', unit_of_measure: 'HOURS', standard_template: false });
    const file = join(server.dir, 'template.json');
    const got = json(await cli('templates', 'get', created.id, '--json'));
    expect(got.template_info.detail.note).toBe('See you');

    writeFileSync(file, JSON.stringify({ name: 'Workshop (2)', template_info: { detail: { currency_code: 'GBP' } } }));
    const replaced = json(await cli('templates', 'update', created.id, '--file', file, '--json'));
    expect(replaced).toMatchObject({ id: created.id, name: 'Workshop (2)', template_info: { detail: { currency_code: 'GBP' } } });
    expect(replaced.template_info.detail.note).toBeUndefined();
    expect(replaced.unit_of_measure).toBeUndefined();

    writeFileSync(file, '{"name": "broken",');
    const broken = await cli('templates', 'update', created.id, '--file', file);
    expect(broken.code).toBe(2);
    expect(broken.stderr).toContain('nothing was sent');
    writeFileSync(file, JSON.stringify({ template_info: {} }));
    expect((await cli('templates', 'update', created.id, '--file', file)).code).toBe(2);
    expect((await server.harness.request('GET', `/v2/invoicing/templates/${created.id}`)).body.name).toBe('Workshop (2)');

    writeFileSync(file, JSON.stringify({ name: 'Quantity' }));
    const taken = await cli('templates', 'update', created.id, '--file', file, '--json');
    expect(taken.code).toBe(2);
    expect(JSON.parse(taken.stderr).details[0].issue).toBe('TEMPLATE_NAME_ALREADY_EXISTS');

    const help = await cli('templates', 'update', '--help');
    expect(help.stdout).toContain('FULL REPLACEMENT');

    expect(json(await cli('templates', 'delete', created.id, '--yes', '--json'))).toEqual({ id: created.id, deleted: true });
    const system = json(await cli('templates', 'list', '--json')).templates[0];
    const refused = await cli('templates', 'delete', system.id, '--yes');
    expect(refused.code).toBe(4);
    expect(refused.stderr).toContain('CANNOT_DELETE_GLOBAL_TEMPLATE');
  });
});
