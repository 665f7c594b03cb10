// The `database` extra: everything of @fnapi/performance, with `pg` installed beside it.
export * from '@fnapi/performance';
