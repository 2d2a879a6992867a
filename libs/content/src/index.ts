export { ContentModule } from './content.module';
