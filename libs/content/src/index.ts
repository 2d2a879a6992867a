export { ContentModule } from './content.module';
export { CONTENT_DATABASE } from './data-access/content-database';
