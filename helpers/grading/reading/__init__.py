"""Reading submissions: finding them (``submissions``), whose each is (``students``: Canvas,
Moodle, a folder per student), downloaded ``.zip`` files taken as they are (``archives``), and
reading what a submission hands the grader in a process of its own, under limits
(``isolate``)."""
