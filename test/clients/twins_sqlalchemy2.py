"""SQLAlchemy 2's Inspector over psycopg 3: every public method on the sales schema, MetaData.reflect
with views, and pandas' read_sql_table; printed for test/clients-twins.test.ts to compare with
PostgreSQL 15."""
import sqlalchemy as sa
from _twins import HOST, PORT, DB, USER, show

engine = sa.create_engine(sa.engine.URL.create("postgresql+psycopg", username=USER, host=HOST, port=PORT, database=DB))
insp = sa.inspect(engine)
S = "sales"


def cols(cs):
    return [(c["name"], str(c["type"]), c["nullable"], c.get("default")) for c in cs]


show("get_schema_names has sales", lambda: S in insp.get_schema_names())
show("get_table_names", lambda: sorted(insp.get_table_names(schema=S)))
show("get_view_names", lambda: sorted(insp.get_view_names(schema=S)))
show("get_materialized_view_names", lambda: insp.get_materialized_view_names(schema=S))
show("get_sequence_names", lambda: insp.get_sequence_names(schema=S))
show("get_temp_table_names", lambda: insp.get_temp_table_names())
show("get_temp_view_names", lambda: insp.get_temp_view_names())
show("has_schema", lambda: [insp.has_schema(S), insp.has_schema("nope")])
show("has_table", lambda: [insp.has_table("orders", schema=S), insp.has_table("nope", schema=S)])
show("has_sequence", lambda: insp.has_sequence("nope", schema=S))
show("has_index", lambda: insp.has_index("orders", "nope", schema=S))
show("get_columns orders", lambda: cols(insp.get_columns("orders", schema=S)))
show("get_columns customers", lambda: cols(insp.get_columns("customers", schema=S)))
show("get_pk_constraint", lambda: insp.get_pk_constraint("orders", schema=S)["constrained_columns"])
show("get_foreign_keys", lambda: insp.get_foreign_keys("orders", schema=S))
show("get_indexes", lambda: insp.get_indexes("orders", schema=S))
show("get_unique_constraints", lambda: insp.get_unique_constraints("orders", schema=S))
show("get_check_constraints", lambda: insp.get_check_constraints("orders", schema=S))
show("get_table_comment", lambda: insp.get_table_comment("orders", schema=S))
show("get_table_options", lambda: insp.get_table_options("orders", schema=S))
show("get_multi_columns", lambda: sorted(k[1] for k in insp.get_multi_columns(schema=S)))
show("get_multi_pk_constraint", lambda: sorted(k[1] for k in insp.get_multi_pk_constraint(schema=S)))
show("get_multi_indexes", lambda: sorted((k[1], len(v)) for k, v in insp.get_multi_indexes(schema=S).items()))
show("get_sorted_table_and_fkc_names", lambda: [t for t, _ in insp.get_sorted_table_and_fkc_names(schema=S)])
show("get_enums", lambda: insp.get_enums(schema=S))
show("get_domains", lambda: insp.get_domains(schema=S))
show("get_multi_foreign_keys", lambda: sorted((k[1], v) for k, v in insp.get_multi_foreign_keys(schema=S).items()))
show("get_multi_unique_constraints", lambda: sorted((k[1], v) for k, v in insp.get_multi_unique_constraints(schema=S).items()))
show("get_multi_check_constraints", lambda: sorted((k[1], v) for k, v in insp.get_multi_check_constraints(schema=S).items()))
show("get_multi_table_comment", lambda: sorted((k[1], v["text"]) for k, v in insp.get_multi_table_comment(schema=S).items()))
show("get_multi_table_options", lambda: sorted((k[1], v) for k, v in insp.get_multi_table_options(schema=S).items()))
show("get_foreign_table_names", lambda: insp.get_foreign_table_names(schema=S))
show("has_type", lambda: [insp.has_type("int4", schema="pg_catalog"), insp.has_type("nope", schema=S)])
show("get_table_oid is an OID", lambda: insp.get_table_oid("orders", schema=S) > 0)
show("get_view_definition of a table", lambda: insp.get_view_definition("orders", schema=S))
show("get_view_definition of no relation", lambda: insp.get_view_definition("nope", schema=S))


def reflect_table():
    t = sa.Table("orders", sa.MetaData(), schema=S)
    insp.reflect_table(t, None)
    return [(c.name, str(c.type)) for c in t.columns]
show("reflect_table", reflect_table)
show("sort_tables_on_foreign_key_dependency", lambda: [t for t, _ in insp.sort_tables_on_foreign_key_dependency(consider_schemas=(S,))])
show("clear_cache", lambda: insp.clear_cache())


def reflect():
    md = sa.MetaData()
    md.reflect(bind=engine, schema=S, views=True)
    return sorted((t.name, [c.name for c in t.columns]) for t in md.tables.values())
show("MetaData.reflect(views=True)", reflect)


def autoload():
    t = sa.Table("customers", sa.MetaData(), schema=S, autoload_with=engine)
    with engine.connect() as c:
        return c.execute(sa.select(sa.func.count()).select_from(t).where(t.c.vip)).scalar()
show("Table(autoload_with) and a query over it", autoload)


def pandas_table():
    import pandas as pd
    df = pd.read_sql_table("orders", engine, schema=S)
    return [df.shape, list(df.columns), str(df["amount"].sum()), str(df["ordered_at"].max())]
show("pandas read_sql_table", pandas_table)
engine.dispose()
