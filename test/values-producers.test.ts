import { describe, expect, it } from 'vitest';
import { loadSpec } from '../src/catalogue/openapi.js';
import { valueSources } from '../src/values/producers.js';
import { fromRoot } from '../src/paths.js';

const spec = await loadSpec(fromRoot('test', 'fixtures', 'values', 'vendor.yaml'));
const model = valueSources(spec);
const best = (op: string, p: string, where: 'path' | 'query' = 'path') => model.of(op, p, where)[0];

describe('value sources: which operation produces a parameter', () => {
  it('follows a declared link, whatever the paths say', () => {
    expect(best('payouts.read', 'tid')).toMatchObject({ producer: 'payouts.create', kind: 'create', select: '/id', via: 'link', confidence: 1, active: true });
  });

  it('infers the collection list first, then its create, reading the member named like the parameter without the resource', () => {
    const all = model.of('cards.get', 'card_token', 'path');
    expect(all.map((s) => [s.producer, s.kind, s.select])).toEqual([
      ['cards.list', 'list', '/data/*/token'],
      ['cards.create', 'create', '/token'],
    ]);
    expect(all[0]!.reason).toMatch(/GET \/cards lists the cards .*member token is card_token without the resource's name/);
  });

  it('fills nested parameters from the parent first: the statements list carries account_id', () => {
    expect(best('statements.get', 'account_id')).toMatchObject({ producer: 'ledgers.list', select: '/*/id' });
    expect(best('statements.get', 'statement_id')).toMatchObject({ producer: 'statements.list', select: '/items/*/statement_id', carry: { account_id: 'account_id' } });
  });

  it('pairs a query parameter naming a resource with that collection, less confidently than a path', () => {
    const s = best('entries.list', 'ledgerId', 'query')!;
    expect(s).toMatchObject({ producer: 'ledgers.list', select: '/*/id', active: true });
    expect(s.confidence).toBeLessThan(best('statements.get', 'account_id')!.confidence);
    expect(model.of('entries.list', 'since', 'query')).toEqual([]);
  });

  it('shows a guess as a suggestion and never acts on it', () => {
    const guess = model.sources.find((s) => s.operation === 'widgets.get' && s.parameter === 'widget_ref');
    expect(guess).toMatchObject({ producer: 'widgets.list', active: false });
    expect(guess!.reason).toMatch(/guess/);
    expect(best('widgets.get', 'widget_ref')).toBeUndefined();
  });
});
