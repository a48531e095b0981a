import {
  findEpochConversions,
  isLeapYear,
  rewriteEpochConversions,
  rewriteLeapDayLiterals,
  tableAliases,
} from '../../../core/sql/rewrite';
import { tokenizeSql } from '../../../core/sql';

describe('leap-day literal rewrite', () => {
  it('moves Feb 29 of a non-leap year to Mar 1 and keeps real leap days', () => {
    expect(isLeapYear(2024)).toBe(true);
    expect(isLeapYear(1900)).toBe(false);
    expect(isLeapYear(2000)).toBe(true);
    const sql = "select * from t where d between '2025-02-29' and '2024-02-29 10:00' -- '2025-02-29'";
    expect(rewriteLeapDayLiterals(sql)).toBe(
      "select * from t where d between '2025-03-01' and '2024-02-29 10:00' -- '2025-02-29'"
    );
  });
});

describe('epoch conversion rewrite', () => {
  const temporal = (table: string, column: string): boolean => table === 'orders' && column === 'created_at';

  it('finds FROM/JOIN aliases, schema-qualified or not', () => {
    const aliases = tableAliases(tokenizeSql('select 1 from business.orders o join items as i on i.o = o.id, users'));
    expect(Object.fromEntries(aliases)).toEqual({
      orders: 'business.orders',
      o: 'business.orders',
      items: 'items',
      i: 'items',
    });
  });

  it('replaces to_timestamp(alias.col / 1000) only for timestamp/date columns', () => {
    const sql =
      'select * from orders o join items i on i.order_id = o.id where to_timestamp(o.created_at / 1000.0) > now() and to_timestamp(i.epoch_ms/1000) < now()';
    expect(findEpochConversions(sql)).toEqual([
      { qualifier: 'o', table: 'orders', column: 'created_at' },
      { qualifier: 'i', table: 'items', column: 'epoch_ms' },
    ]);
    expect(rewriteEpochConversions(sql, temporal)).toBe(
      'select * from orders o join items i on i.order_id = o.id where o.created_at > now() and to_timestamp(i.epoch_ms/1000) < now()'
    );
  });

  it('leaves unknown qualifiers and other divisors alone', () => {
    const sql =
      'select * from orders o where to_timestamp(x.created_at / 1000) > now() and to_timestamp(o.created_at / 60)';
    expect(rewriteEpochConversions(sql, temporal)).toBe(sql);
  });
});
