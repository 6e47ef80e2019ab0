#!/usr/bin/perl
# Perl DBI with DBD::Pg (libpq) as Perl applications use it: placeholders, server-side prepared
# statements reused by prepare_cached (DBD::Pg switches to a named statement from the second
# execution), its type mapping ($sth->{TYPE}, pg_type), the metadata API (table_info, column_info),
# array parameters, bytea bound in binary, asynchronous queries with pg_cancel, and recovery.
# Prints `ok <check>` per check; exits non-zero on the first failure.
# Environment: FDL_HOST, FDL_PORT, FDL_DB, FDL_USER, LONG_QUERY (a query that runs for seconds).
use strict;
use warnings;
use DBI qw(:sql_types);
use DBD::Pg qw(:pg_types :async);
use Time::HiRes qw(sleep);

$| = 1;
my $dbh;

sub check {
    my ($name, $code) = @_;
    my $ok = eval { $code->(); 1 };
    if (!$ok) {
        print "FAIL $name: $@\n";
        exit 1;
    }
    print "ok $name\n";
}

sub expect {
    my ($actual, $expected, $what) = @_;
    my $a = defined $actual ? "$actual" : 'undef';
    my $e = defined $expected ? "$expected" : 'undef';
    die "$what: expected $e, got $a\n" unless $a eq $e;
}

check('connect', sub {
    my $dsn = "dbi:Pg:host=$ENV{FDL_HOST};port=$ENV{FDL_PORT};dbname=$ENV{FDL_DB};sslmode=prefer";
    $dbh = DBI->connect($dsn, $ENV{FDL_USER}, '', { RaiseError => 1, PrintError => 0, AutoCommit => 1 });
    expect($dbh->{pg_server_version} >= 150000 ? 1 : 0, 1, 'server version');
});

check('placeholders and prepare_cached (server-side prepared statement reused)', sub {
    my @counts;
    for my $status (qw(shipped cancelled open shipped)) {
        my $sth = $dbh->prepare_cached('select count(*) from sales.orders where status = ?');
        $sth->execute($status);
        push @counts, $sth->fetchrow_array;
        $sth->finish;
    }
    expect(join(',', @counts), '32,17,31,32', 'counts');
    my $sth = $dbh->prepare_cached('select count(*) from sales.orders where status = ?');
    expect($sth->{pg_prepare_name} ? 1 : 0, 1, 'named server-side statement');
    my $n = $dbh->selectrow_array(q{select count(*) from pg_prepared_statements});
    expect(defined $n ? 1 : 0, 1, 'pg_prepared_statements readable');
});

check('type mapping: TYPE and pg_type of result columns', sub {
    my $sth = $dbh->prepare('select order_id, amount, qty, ordered_at, status, true as flag from sales.orders limit 1');
    $sth->execute;
    $sth->fetchall_arrayref;
    expect(join(',', @{ $sth->{pg_type} }), 'int8,numeric,int2,timestamp,text,bool', 'pg_type');
    expect(join(',', @{ $sth->{TYPE} }), join(',', SQL_BIGINT, SQL_NUMERIC, SQL_SMALLINT, SQL_TIMESTAMP, SQL_LONGVARCHAR, SQL_BOOLEAN), 'TYPE');
    expect(join(',', @{ $sth->{NAME} }), 'order_id,amount,qty,ordered_at,status,flag', 'NAME');
    my $cat = $dbh->prepare(q{select typtype, typname from pg_type where oid = 23});
    $cat->execute;
    expect(join(',', @{ $cat->{pg_type} }), 'char,name', 'catalog "char" and name columns');
    expect(join(',', $cat->fetchrow_array), 'b,int4', 'values');
});

check('metadata API: table_info and column_info', sub {
    my $tables = $dbh->table_info(undef, 'sales', '%', 'TABLE')->fetchall_arrayref({});
    expect(join(',', sort map { $_->{TABLE_NAME} } @$tables), 'customers,orders', 'tables of sales');
    my $cols = $dbh->column_info(undef, 'sales', 'orders', undef)->fetchall_arrayref({});
    expect(join(',', map { $_->{COLUMN_NAME} } sort { $a->{ORDINAL_POSITION} <=> $b->{ORDINAL_POSITION} } @$cols),
        'order_id,customer_id,amount,qty,ordered_at,status', 'columns in order');
    my ($amount) = grep { $_->{COLUMN_NAME} eq 'amount' } @$cols;
    expect($amount->{pg_type}, 'numeric(12,2)', 'pg_type of amount');
});

check('array parameters and bytea bound in binary', sub {
    my $n = $dbh->selectrow_array('select count(*) from sales.orders where status = any(?)', undef, ['shipped', 'cancelled']);
    expect($n, 49, 'any over an array');
    my $sth = $dbh->prepare('select octet_length(?::bytea)');
    $sth->bind_param(1, "\x00\x01\xff", { pg_type => PG_BYTEA });
    $sth->execute;
    expect(($sth->fetchrow_array)[0], 3, 'bytea octet_length');
});

check('cancel long query 57014', sub {
    $dbh->do($ENV{LONG_QUERY}, { pg_async => PG_ASYNC });
    sleep 0.3;
    $dbh->pg_cancel;
    expect($dbh->state, '57014', 'sqlstate after pg_cancel');
    expect($dbh->selectrow_array('select 1'), 1, 'usable after cancel');
});

check('error then recovery', sub {
    $dbh->begin_work;
    my $failed = eval { $dbh->do('select * from no_such_table'); 1 } ? 0 : 1;
    expect($failed, 1, 'error raised');
    expect($dbh->state, '42P01', 'sqlstate');
    $dbh->rollback;
    expect($dbh->selectrow_array('select count(*) from sales.customers'), 23, 'customers');
});

$dbh->disconnect;
print "ok done\n";
