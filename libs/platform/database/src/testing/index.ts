export {
  MEDIUM_POSTGRES_SUPERUSER_URL,
  MEDIUM_POSTGRES_URL,
  openFreshDatabase,
  openServiceDatabase,
  type FreshDatabase,
  type OpenServiceDatabase,
} from './medium-database';
