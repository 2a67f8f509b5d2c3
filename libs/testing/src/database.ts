import { dropDatabase, ensureDatabase } from '@hireflow/db';
import { uniqueName } from './names.ts';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

const SERVER = process.env.TEST_DATABASE_SERVER ?? 'postgres://postgres@127.0.0.1:5432';

/** A fresh database of the test's own, dropped (with its connections) by `drop()`. */
export async function createTestDatabase(label: string): Promise<TestDatabase> {
  const name = `hftest_${uniqueName(label).replaceAll('-', '_')}`;
  const url = `${SERVER}/${name}`;
  await ensureDatabase(url);
  return {
    url,
    name,
    drop: () => dropDatabase(url),
  };
}
