/** The PostgreSQL schema the content service owns; also the name of its data source. */
export const CONTENT_SCHEMA = 'content';
