-- Round format 2 (blocked postings, rounds that build on a base): format-1 rounds cannot be served any more.
-- Their rows go; `npm run publish` (or `npm start`) publishes rebuilt rounds again.
DELETE FROM `items`;--> statement-breakpoint
DELETE FROM `rounds`;
