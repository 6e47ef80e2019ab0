# ruby-pg (libpq) as Rails and Sequel use it: the type registry query (BasicTypeMapForResults),
# typed parameters (BasicTypeMapForQueries, arrays included), binary results, prepared statements
# (prepare / describe_prepared / exec_prepared), result metadata (ftable / ftablecol / ftype / fmod),
# cancel and recovery. Prints `ok <check>` per check; exits non-zero on the first failure.
# Environment: FDL_HOST, FDL_PORT, FDL_DB, FDL_USER, LONG_QUERY (a query that runs for seconds).
require 'pg'
require 'bigdecimal'

def check(name)
  yield
  puts "ok #{name}"
  $stdout.flush
rescue Exception => e
  puts "FAIL #{name}: #{e.class}: #{e.message}"
  puts e.backtrace.first(3)
  exit 1
end

def expect(actual, expected, what)
  raise "#{what}: expected #{expected.inspect}, got #{actual.inspect}" unless actual == expected
end

conn = nil
check('connect') do
  conn = PG.connect(host: ENV['FDL_HOST'], port: ENV['FDL_PORT'], dbname: ENV['FDL_DB'], user: ENV['FDL_USER'], sslmode: 'prefer')
  expect(conn.transaction_status, PG::PQTRANS_IDLE, 'idle')
  expect(conn.server_version >= 150000, true, 'server_version')
end

check('type registry query and decoded results') do
  # Rails' PostgreSQL adapter and Sequel load the type map from pg_type/pg_proc like this.
  conn.type_map_for_results = PG::BasicTypeMapForResults.new(conn)
  r = conn.exec('select order_id, customer_id, amount, qty, ordered_at, status from sales.orders where order_id = 1')
  row = r.values.first
  expect(row[0], 1, 'bigint as Integer')
  expect(row[2].class, BigDecimal, 'numeric as BigDecimal')
  expect(row[2], BigDecimal('13.73'), 'numeric value')
  expect(row[3], 2, 'smallint as Integer')
  expect(row[4].class, Time, 'timestamp as Time')
  expect(row[4].strftime('%F %T'), '2024-01-01 09:37:00', 'timestamp value')
  expect(row[5], 'shipped', 'text')
end

check('typed parameters, arrays included') do
  conn.type_map_for_queries = PG::BasicTypeMapForQueries.new(conn)
  r = conn.exec_params('select count(*) from sales.orders where status = any($1) and qty >= $2', [%w[shipped cancelled], 1])
  expect(r.getvalue(0, 0), 49, 'count over an array parameter')
  conn.type_map_for_queries = PG::TypeMapAllStrings.new
end

check('binary results') do
  text = conn.exec_params('select order_id, customer_id, qty, status, ordered_at from sales.orders order by order_id limit 5', [], 0).values
  bin = conn.exec_params('select order_id, customer_id, qty, status, ordered_at from sales.orders order by order_id limit 5', [], 1)
  expect((0...bin.nfields).map { |i| bin.fformat(i) }, [1, 1, 1, 1, 1], 'binary formats')
  expect(bin.values, text, 'binary decodes to the same values as text')
end

check('prepared statements: describe_prepared and exec_prepared') do
  conn.prepare('by_status', 'select count(*) as n from sales.orders where status = $1')
  d = conn.describe_prepared('by_status')
  expect([d.nparams, d.paramtype(0), d.nfields, d.fname(0), d.ftype(0)], [1, 25, 1, 'n', 20], 'description')
  counts = %w[shipped cancelled open].map { |s| conn.exec_prepared('by_status', [s]).getvalue(0, 0) }
  expect(counts, [32, 17, 31], 'counts')
  # A statement whose shape depends on a reg* parameter is described with its real columns.
  conn.prepare('cols', 'select attname, atttypid from pg_attribute where attrelid = cast($1 as regclass) and attnum > 0 order by attnum')
  d = conn.describe_prepared('cols')
  expect([d.nparams, d.paramtype(0), d.nfields, d.ftype(0), d.ftype(1)], [1, 2205, 2, 19, 26], 'regclass statement description')
  r = conn.exec_prepared('cols', ['sales.orders'])
  expect(r.column_values(0), %w[order_id customer_id amount qty ordered_at status], 'columns of sales.orders')
  conn.exec('deallocate by_status')
end

check('result metadata: ftable, ftablecol, ftype, fmod') do
  oid = conn.exec("select 'sales.orders'::regclass::oid").getvalue(0, 0).to_i
  r = conn.exec('select o.status, o.amount, o.qty * 2 as dbl from sales.orders o limit 1')
  expect([r.ftable(0), r.ftablecol(0)], [oid, 6], 'status source')
  expect([r.ftable(1), r.ftablecol(1), r.ftype(1), r.fmod(1)], [oid, 3, 1700, (12 << 16 | 2) + 4], 'amount source and typmod')
  expect([r.ftable(2), r.ftablecol(2)], [0, 0], 'expression has no source')
  att = conn.exec("select attnum from pg_attribute where attrelid = #{oid} and attname = 'status'").getvalue(0, 0).to_i
  expect(att, 6, 'pg_attribute agrees')
end

check('cancel long query 57014') do
  conn.send_query(ENV['LONG_QUERY'])
  sleep 0.3
  conn.cancel
  err = nil
  begin
    conn.get_last_result
  rescue PG::QueryCanceled => e
    err = e
  end
  raise 'no cancel error' unless err
  expect(err.result.error_field(PG::PG_DIAG_SQLSTATE), '57014', 'sqlstate')
  expect(conn.exec('select 1').getvalue(0, 0), 1, 'usable after cancel')
end

check('error then recovery') do
  conn.exec('begin')
  begin
    conn.exec('select * from no_such_table')
    raise 'no error'
  rescue PG::UndefinedTable
  end
  expect(conn.transaction_status, PG::PQTRANS_INERROR, 'failed transaction')
  conn.exec('rollback')
  expect(conn.transaction_status, PG::PQTRANS_IDLE, 'idle again')
  expect(conn.exec('select count(*) from sales.customers').getvalue(0, 0), 23, 'customers')
end

conn.close
puts 'ok done'
