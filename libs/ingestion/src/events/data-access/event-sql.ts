import { FORMULA_START, NUMBER_TEXT } from '@guidepost/platform-http';
import { zoneDesignator } from '../domain/time-zone';

/**
 * SQL expressions over the `events` table that render what clients read, so that history and both
 * export formats agree byte for byte and exports are written by ClickHouse, not row by row in Node.
 */

/** The timestamp in the requested zone: `2024-05-01T05:30:00.000-04:00`, or `...Z` in UTC. Needs `zoneParams`. */
export const RENDERED_TIMESTAMP = `concat(replaceOne(toString(addMinutes(timestamp, {zone_minutes:Int32})), ' ', 'T'), {zone_designator:String})`;

export function zoneParams(timeZoneMinutes: number): { zone_minutes: number; zone_designator: string } {
  return { zone_minutes: timeZoneMinutes, zone_designator: zoneDesignator(timeZoneMinutes) };
}

/**
 * One NDJSON line: `{"name":..,"timestamp":..,"user_id":..,"id":..,"attributes":{..}}`, `user_id` null
 * for an event of a group only, `id` the event id fixed at intake (stable, so clients can drop copies).
 * `attributes` is already compact JSON text.
 */
export const JSON_LINE =
  `concat('{"name":', toJSONString(name), ',"timestamp":', toJSONString(${RENDERED_TIMESTAMP}), ` +
  `',"user_id":', if(user_id = '', 'null', toJSONString(user_id)), ',"id":', toJSONString(event_id), ',"attributes":', attributes, '}')`;

/** A regular expression as a ClickHouse string literal: RE2 reads these patterns as JavaScript does. */
function sqlPattern(pattern: RegExp): string {
  return `'${pattern.source.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

/**
 * The text `cell` as a CSV cell, by the rule of every CSV of the API (`csvCell`, platform-http): a
 * formula is neutralised (a single quote before it, and quoted), a cell holding a comma, a quote or a
 * line break is quoted (quotes doubled), anything else is itself.
 */
const CSV_CELL =
  `if(match(cell, ${sqlPattern(FORMULA_START)}) AND NOT match(cell, ${sqlPattern(NUMBER_TEXT)}), concat('"\\'', replaceAll(cell, '"', '""'), '"'), ` +
  `if(multiSearchAny(cell, [',', '"', '\\r', '\\n']), concat('"', replaceAll(cell, '"', '""'), '"'), cell))`;

/**
 * An event's attribute cells, one per key of `{attribute_keys:Array(String)}` in the keys' byte order
 * (the CSV header's order): the attributes are parsed once per row into a map of cells (a string is
 * itself, JSON null is empty, any other value its JSON text), the keys the event lacks are added empty,
 * and the map is sorted by key. Looking each key up in the parsed map (`arrayMap(key -> map[key], keys)`)
 * would copy the whole map once per key: an event with 999 attributes of 1 KB needed 1 GB of memory.
 * Every key of the event is one of `attribute_keys`, the union of the exported events' keys.
 */
const ATTRIBUTE_CELLS =
  `mapValues(mapSort(mapUpdate(mapFromArrays({attribute_keys:Array(String)}, arrayWithConstant(length({attribute_keys:Array(String)}), '')), ` +
  `JSONExtract(attributes, 'Map(String, String)'))))`;

/**
 * One CSV record: `name`, `timestamp`, `user_id`, `id` (the event id), then the attribute cells
 * (`ATTRIBUTE_CELLS`), each written by `CSV_CELL`. The record ends with `\r`: written as
 * `TabSeparatedRaw`, whose `\n` completes the CRLF.
 */
export const CSV_RECORD = `concat(arrayStringConcat(arrayMap(cell -> ${CSV_CELL}, arrayConcat([name, ${RENDERED_TIMESTAMP}, user_id, event_id], ${ATTRIBUTE_CELLS})), ','), '\\r')`;

/**
 * Settings of every query that reads events. simdjson refuses a whole document that holds an integer
 * beyond 64 bits (`JSON.stringify` writes 1e20 as digits), which would hide every attribute of the
 * event; rapidjson reads it as a double. `toJSONString` leaves `/` unescaped, like `JSON.stringify`.
 * `FINAL` may filter before it merges, and within each partition only: copies of an event are
 * identical rows (ids are deterministic), and a month partition holds every copy of its events.
 */
export const READ_SETTINGS =
  'SETTINGS allow_simdjson = 0, output_format_json_escape_forward_slashes = 0, ' +
  'optimize_move_to_prewhere_if_final = 1, do_not_merge_across_partitions_select_final = 1';
