import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { runMain } from '../helpers/run-main.js';

/**
 * Addresses as people write them, through the CLI and the sandbox and back: the first three rows
 * are real district offices with non-ASCII names (unitedstates/congress-legislators, CC0, by way of
 * shared/data/messy/district-offices.csv); the others are as the users wrote them.
 */
const HEADER = 'office_id,address,unit,building,city,state,zipcode';
const ROWS = [
  'G000555-albany,11A Clinton Avenue,Room 821,Leo W. O’Brien Federal Office Building,Albany,NY,12207',
  'P000620-cañon_city,611 Greenwood Ave.,Suite C,,Cañon City,CO,81212',
  'R000618-lincoln,1248 ‘O’ St.,Suite 1000,,Lincoln,NE,68508',
  'chenier,3 Rue Chénier,,,New Orleans,LA,70116',
  'cafe,9 Café Ln,,,Austin,TX,78701',
  'pena,Calle Peña 12,,,San Juan,PR,00901',
];

/** The file as Excel's "CSV (Comma delimited)" saves it on a Western Windows, or as UTF-8 with LF. */
function write(dir: string, encoding: 'windows-1252' | 'utf-8'): string {
  const path = join(dir, `offices-${encoding}.csv`);
  const text = [HEADER, ...ROWS].join(encoding === 'utf-8' ? '\n' : '\r\n') + '\n';
  writeFileSync(path, encoding === 'utf-8' ? text : iconv.encode(text, 'windows-1252'));
  return path;
}

async function valueRecords(input: string): Promise<Record<string, string>[]> {
  const output = `${input}.out.csv`;
  const run = await runMain(['property', 'value', '--input', input, '--output', output, '--sandbox', '--no-store']);
  expect(run.code, run.stderr).toBe(0);
  return parse<Record<string, string>>(readFileSync(output), { columns: true, bom: true });
}

describe('accented addresses through `property value --sandbox`', () => {
  it('come back with their letters, in a Windows-1252 file and a UTF-8 one alike, with slugs in ASCII', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'propdata-accents-'));
    const [cp1252, utf8] = [await valueRecords(write(dir, 'windows-1252')), await valueRecords(write(dir, 'utf-8'))];
    expect(cp1252).toEqual(utf8);
    const column = (name: string) => cp1252.map((record) => record[name]);
    expect(column('_status')).toEqual(ROWS.map(() => 'ok'));
    expect(column('office_id')).toEqual(ROWS.map((row) => row.split(',')[0]));
    expect(column('building')[0]).toBe('Leo W. O’Brien Federal Office Building');
    expect(column('address_info.address')).toEqual([
      '11a Clinton Ave',
      '611 Greenwood Ave',
      '1248 O St',
      '3 Rue Chénier',
      '9 Café Ln',
      '12 Calle Peña',
    ]);
    expect(column('address_info.city')).toEqual(['Albany', 'Cañon City', 'Lincoln', 'New Orleans', 'Austin', 'San Juan']);
    expect(column('address_info.slug')).toEqual([
      '11a-Clinton-Ave-RM-821-Albany-NY-12207',
      '611-Greenwood-Ave-STE-C-Canon-City-CO-81212',
      '1248-O-St-STE-1000-Lincoln-NE-68508',
      '3-Rue-Chenier-New-Orleans-LA-70116',
      '9-Cafe-Ln-Austin-TX-78701',
      '12-Calle-Pena-San-Juan-PR-00901',
    ]);
    for (const slug of column('address_info.slug')) expect(slug).toMatch(/^[A-Za-z0-9-]+$/);
  });
});
