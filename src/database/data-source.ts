import { DataSource } from 'typeorm';
import { loadConfig } from '../config/app-config';
import { dataSourceOptions } from './database-options';

/** For the TypeORM CLI (`migration:generate`); needs DATABASE_URL. */
export default new DataSource(dataSourceOptions(loadConfig().database.url ?? 'postgres://postgres@127.0.0.1:5432/postgres'));
