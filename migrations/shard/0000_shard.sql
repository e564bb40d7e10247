CREATE TABLE `postings` (
	`round` integer NOT NULL,
	`key` text NOT NULL,
	`data` blob NOT NULL,
	PRIMARY KEY(`round`, `key`)
);
