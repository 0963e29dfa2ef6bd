"""Resume-writer prompts kept as module constants (another module fills them
through a chain): the applicant's own details, then the job posting, each
ahead of fixed HTML instructions."""

HEADER_HTML = """
```html
<header>
  <h1>[Full Name]</h1>
  <div class="contact-info">
    <p class="fas fa-map-marker-alt"><span>[City, Country]</span></p>
    <p class="fas fa-phone"><span>[Phone]</span></p>
    <p class="fas fa-envelope"><span>[Email]</span></p>
  </div>
</header>
```
Return only the HTML, with no explanation and no Markdown outside the code block."""

prompt_header = """
Act as an HR expert and resume writer specialising in ATS-friendly resumes. Your task is to write a
clean, professional header for the resume, with the contact details laid out clearly.

- **My information:**
  {personal_information}
""" + HEADER_HTML

prompt_experience = """
Act as an HR expert and resume writer. Describe the applicant's work experience so that it matches the
job description below, with measurable results and the skills the posting asks for.

- **Job description:**
  {job_description}

- **Work experience:**
  {experience_details}
""" + HEADER_HTML
