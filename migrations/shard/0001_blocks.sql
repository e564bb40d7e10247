-- Blocked, content-addressed postings (round format 2). Format-1 postings cannot be converted: the catalogue's
-- 0002 migration drops format-1 rounds, which are published again from rebuilt artifacts.
CREATE TABLE `blocks` (
	`hash` text PRIMARY KEY NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_postings` (
	`round` integer NOT NULL,
	`key` text NOT NULL,
	`seq` integer NOT NULL,
	`first` integer NOT NULL,
	`last` integer NOT NULL,
	`count` integer NOT NULL,
	`hash` text NOT NULL,
	PRIMARY KEY(`round`, `key`, `seq`)
);
--> statement-breakpoint
DROP TABLE `postings`;--> statement-breakpoint
ALTER TABLE `__new_postings` RENAME TO `postings`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `postings_hash` ON `postings` (`hash`);